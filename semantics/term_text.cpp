#include "semantics/term_text.hpp"

namespace tfsem {

namespace {

thread_local TermNames* open_scope = nullptr;
thread_local auto open_pass = TermNames::Scope::Pass::write;

// A term applied to arguments: the only kind of tensor that is ever named.
bool compound(const Tensor& t) { return t.is_term() && !t.as_term().args.empty(); }

std::string head_text(const Tensor& t) {
  const auto& term = t.as_term();
  return term.atom ? term.head : term.head + "(";
}

}  // namespace

TermNames::Scope::Scope(TermNames& names, Pass pass) : previous_(open_scope), previous_pass_(open_pass) {
  open_scope = &names;
  open_pass = pass;
}

TermNames::Scope::~Scope() {
  open_scope = previous_;
  open_pass = previous_pass_;
}

TermNames* TermNames::current() { return open_scope; }

std::string TermNames::in_scope(const Tensor& t, std::size_t max_elements) {
  if (open_pass == Scope::Pass::write) return text(t, max_elements);
  count(t);
  return {};
}

// A walk over t's DAG with an explicit stack (a term may be thousands of
// levels deep), entering each subterm when it is first referred to.
void TermNames::count(const Tensor& t) {
  if (!compound(t)) return;
  counted_.push_back(t);
  if (uses_[t.identity()].references++ > 0) return;
  for (std::vector<const Tensor*> todo{&t}; !todo.empty();) {
    const auto* u = todo.back();
    todo.pop_back();
    for (const auto& a : u->as_term().args) {
      if (!compound(a)) continue;
      auto& uses = uses_[a.identity()];
      uses.argument = true;
      if (uses.references++ == 0) todo.push_back(&a);
    }
  }
}

bool TermNames::shared(const Tensor& t) const {
  const auto it = uses_.find(t.identity());
  return it != uses_.end() && it->second.argument && it->second.references > 1;
}

std::string TermNames::define(const Tensor& t, std::string text) {
  const auto index = definitions_.size();
  definitions_.push_back({"%" + std::to_string(index + 1), std::move(text)});
  named_.emplace(t.identity(), index);
  keep_.push_back(t);
  return definitions_.back().name;
}

// Writes the text bottom-up with an explicit stack, each subterm not named
// inline where it occurs, each shared one once, as its definition.
std::string TermNames::text(const Tensor& t, std::size_t max_elements) {
  auto leaf = [&](const Tensor& u) -> std::string {
    if (const auto it = named_.find(u.identity()); it != named_.end()) return definitions_[it->second].name;
    if (u.is_term()) return head_text(u) + (u.as_term().atom ? "" : ")");
    return u.to_string(max_elements);
  };
  if (!compound(t) || named_.contains(t.identity())) return leaf(t);
  if (!uses_.contains(t.identity())) count(t);  // not counted in a pass before: t alone decides
  // The text goes into one buffer, or into a buffer of its own while a
  // subterm to be named is written: no text is copied into its parent's.
  std::vector<std::string> buffers(1);
  std::vector<std::pair<const Tensor*, std::size_t>> open;  // a term, and its argument to write next
  auto enter = [&](const Tensor& u) {
    if (shared(u)) buffers.emplace_back();
    buffers.back() += head_text(u);
    open.emplace_back(&u, 0);
  };
  enter(t);
  while (!open.empty()) {
    auto& [term, next] = open.back();
    const auto& args = term->as_term().args;
    if (next < args.size()) {
      const auto& a = args[next++];
      if (next > 1) buffers.back() += ',';
      if (compound(a) && !named_.contains(a.identity())) enter(a);
      else buffers.back() += leaf(a);
      continue;
    }
    buffers.back() += ')';
    const auto& done = *term;
    open.pop_back();
    if (shared(done)) {
      auto definition = std::move(buffers.back());
      buffers.pop_back();
      buffers.back() += define(done, std::move(definition));
    }
  }
  return std::move(buffers.front());
}

}  // namespace tfsem
