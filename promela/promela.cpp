#include "promela/promela.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace tfsem::promela {

namespace {

// Both exporters' refusal of TensorFlow 1's dereferencing reads, which have no process of their own.
constexpr const char* kDerefRefusal = "a function dereferencing a variable edge (S-DEREF) is not exported";

// ---- Section 3 graphs: one process per node, edges as channels. ----

class CoreExporter {
 public:
  explicit CoreExporter(const Program& p) : p_(p) {}

  std::string run() {
    std::ostringstream out;
    out << "/* " << p_.name() << ": exported by tfsem (hash " << p_.hash_hex() << ") */\n";
    for (std::size_t x = 0; x < p_.variables().size(); ++x) {
      const auto& v = p_.variable(VarId(x));
      out << "int x" << x << " = " << scalar(v.initial, "variable '" + v.name + "'", v.where) << "; /* " << v.name << " */\n";
    }
    out << "hidden int a0, a1, r0; /* a step's arguments and result */\n";
    for (std::size_t i = 0; i < p_.edges().size(); ++i) {
      const auto& e = p_.edge(EdgeId(i));
      if (!e.is_input()) out << "chan e" << i << " = [1] of { " << channel_type(e) << " }; /* " << e.name() << " */\n";
    }
    for (std::size_t n = 0; n < p_.nodes().size(); ++n) out << process(NodeId(n));
    out << monitor();
    if (!problems_.empty()) throw InputError(std::move(problems_));
    return out.str();
  }

 private:
  const Program& p_;
  std::vector<Diagnostic> problems_;

  void refuse(std::string_view where, std::string_view subject, const std::string& why) {
    problems_.push_back({"X-PROMELA", std::string(where), std::string(subject), why + "; the Promela export supports i32 scalars only"});
  }

  std::string scalar(const Tensor& t, std::string_view subject, std::string_view where) {
    if (t.kind() == Tensor::Kind::dense && t.as_dense().dtype() == DType::i32 && t.as_dense().shape.empty())
      return std::to_string(std::get<Buffer<std::int32_t>>(t.as_dense().data)[0]);
    refuse(where, subject, "value " + t.to_string(8) + " is not an i32 scalar");
    return "0";
  }

  static const char* channel_type(const Edge& e) {
    switch (e.kind) {
      case EdgeKind::control: return "bit";
      case EdgeKind::variable: return "byte";
      case EdgeKind::tensor: return "int";
    }
    return "int";
  }

  std::string initial(EdgeId id) {
    const auto& c = p_.initial(id);
    if (std::holds_alternative<Go>(c)) return "1";
    if (const auto* v = std::get_if<VarId>(&c)) return std::to_string(v->value);
    const auto& e = p_.edge(id);
    return scalar(std::get<Tensor>(c), "edge '" + e.name() + "'", p_.where(e));
  }

  // The expression f computes from the arguments a0, a1, or empty if unsupported.
  static std::string expression(std::string_view f) {
    if (f == "Identity" || f == "Snd") return f == "Snd" ? "a1" : "a0";
    if (f == "Add") return "a0 + a1";
    if (f == "Sub") return "a0 - a1";
    if (f == "Mul") return "a0 * a1";
    if (f == "Neg") return "-a0";
    return "";
  }

  std::string process(NodeId id) {
    const auto& n = p_.node(id);
    const auto subject = "node '" + n.name() + "'";
    std::ostringstream body, guard, decl;
    decl << "active proctype n" << id.value << "() { /* " << n.name() << ": " << p_.label(id) << " */\n";
    for (auto d : p_.incoming(id))
      if (!p_.edge(d).is_input()) decl << "  xr e" << d.value << ";\n";
    for (auto e : p_.outgoing(id)) decl << "  xs e" << e.value << ";\n";
    for (auto d : p_.incoming(id))
      if (!p_.edge(d).is_input()) guard << (guard.tellp() > 0 ? " && " : "") << "nempty(e" << d.value << ")";
    if (guard.tellp() == 0) guard << "true";
    int arg = 0;
    for (auto d : n.in) {
      const auto& e = p_.edge(d);
      const auto a = e.kind == EdgeKind::variable ? "_" : "a" + std::to_string(arg++);
      if (!e.is_input()) body << " e" << d.value << "?" << a << ";";
      else if (a != "_") body << " " << a << " = " << initial(d) << ";";
    }
    for (auto d : n.control_in)
      if (!p_.edge(d).is_input()) body << " e" << d.value << "?_;";
    const auto var = [&] { return "x" + std::to_string(p_.variable_of(id)->value); };
    switch (n.op.kind) {
      case Op::Kind::var: body << " e" << n.out[0].value << "!" << n.op.var.value << ";"; break;
      case Op::Kind::read: body << " e" << n.out[0].value << "!" << var() << ";"; break;
      case Op::Kind::assign: {
        const auto f = expression(n.op.fn->name);
        if (f.empty()) refuse(p_.where(n), subject, "Assign-" + std::string(n.op.fn->name) + " is not exported");
        std::string update = f;  // f(w, v) with w the variable's value and v the input
        body << " a1 = a0; a0 = " << var() << "; " << var() << " = " << update << ";";
        break;
      }
      case Op::Kind::function: {
        const auto name = n.op.fn->name;
        if (p_.variable_of(id)) {
          refuse(p_.where(n), subject, kDerefRefusal);
        } else if (name == "Copy") {
          body << " e" << n.out[0].value << "!a0; e" << n.out[1].value << "!a0;";
        } else if (name == "Const") {
          body << " e" << n.out[0].value << "!" << scalar(std::get<Tensor>(n.attrs().at("value")), subject, p_.where(n)) << ";";
        } else if (name == "Choice") {
          body << " if";
          for (const auto& v : std::get<std::vector<Tensor>>(n.attrs().at("values"))) body << " :: r0 = " << scalar(v, subject, p_.where(n));
          body << " fi; e" << n.out[0].value << "!r0;";
        } else if (const auto f = expression(name); !f.empty() && n.out.size() == 1) {
          body << " r0 = " << f << "; e" << n.out[0].value << "!r0;";
        } else {
          refuse(p_.where(n), subject, "function " + std::string(name) + " is not exported");
        }
        break;
      }
      case Op::Kind::send:  // S-SEND: the value, or the variable's (a copy of a reference), into the rendezvous
        body << " e" << n.out[0].value << "!" << (p_.variable_of(id) ? var() : "a0") << ";";
        break;
      case Op::Kind::recv:  // S-RECV: the rendezvous's value to every output
        for (auto e : n.out) body << " e" << e.value << "!a0;";
        break;
      default: refuse(p_.where(n), subject, p_.label(id) + " (control flow) is not exported"); break;
    }
    for (auto e : n.control_out) body << " e" << e.value << "!1;";
    decl << "  atomic { " << guard.str() << " ->" << body.str() << " }\n}\n";
    return decl.str();
  }

  // At a terminal state (no process can move: timeout), prints the outcome as
  // tfsem check writes it: fetched outputs by edge, then every variable.
  std::string monitor() {
    std::ostringstream format, args, decl;
    int k = 0;
    for (std::size_t i = 0; i < p_.edges().size(); ++i) {
      const auto& e = p_.edge(EdgeId(i));
      if (!e.is_output() || p_.fetch(e).empty()) continue;
      if (e.kind != EdgeKind::tensor) refuse(p_.where(e), "edge '" + e.name() + "'", "a fetched " + std::string(edge_kind_name(e.kind)) + " edge");
      decl << "  int o" << k << ";\n";
      if (e.is_input()) args << " o" << k << " = " << initial(EdgeId(i)) << ";";
      else args << " e" << i << "?<o" << k << ">;";
      format << (format.tellp() > 0 ? "; " : "") << p_.fetch(e) << "=i32:%d";
      ++k;
    }
    std::ostringstream values;
    for (int j = 0; j < k; ++j) values << ", o" << j;
    for (std::size_t x = 0; x < p_.variables().size(); ++x) {
      format << (format.tellp() > 0 ? "; " : "") << p_.variable(VarId(x)).name << "=i32:%d";
      values << ", x" << x;
    }
    return "active proctype outcome() {\n" + decl.str() + "  atomic { timeout ->" + args.str() + " printf(\"OUTCOME " +
           format.str() + "\\n\"" + values.str() + ") }\n}\n";
  }
};

// ---- Graphs with control flow: contexts unrolled, slots and records as globals. ----

// A context of the unrolled graph (C-CONTEXT).
struct UnrolledContext {
  FrameId frame{std::uint32_t{0}};
  int parent = -1;               // the enclosing context; -1 for the root
  std::uint32_t iteration = 0;
  std::uint32_t depth = 0;
  int first = 0;                 // iteration 0 of its frame instance
  int previous = -1, next = -1;  // its frame instance's iterations i - 1 and i + 1; -1: none
  std::vector<std::uint32_t> path;  // its iterations, outermost first
  std::string suffix;            // "_1_0": its path; "" for the root
  std::string text;              // "outer:1,inner:0", as tfsem prints it
};

// A frame instance: the iterations of a loop frame entered from one context.
struct Instance {
  int parent = 0;
  FrameId frame;
  std::vector<int> iterations;
};

// Every context of a program whose loops run at most k iterations: depth
// first, each frame instance's iterations in order.
class Unrolling {
 public:
  Unrolling(const Program& p, std::uint32_t k, std::size_t limit) : p_(p), k_(k), limit_(limit) {
    by_frame_.resize(p.frames().size());
    contexts_.emplace_back();
    by_frame_[0].push_back(0);
    expand(0);
    for (std::size_t i = 0; i < instances_.size(); ++i) by_parent_[instances_[i].parent].push_back(static_cast<int>(i));
  }

  [[nodiscard]] bool overflow() const { return contexts_.size() > limit_; }
  [[nodiscard]] const UnrolledContext& at(int c) const { return contexts_[static_cast<std::size_t>(c)]; }
  [[nodiscard]] std::size_t size() const { return contexts_.size(); }
  [[nodiscard]] const std::vector<int>& of_frame(FrameId f) const { return by_frame_[f.index()]; }
  [[nodiscard]] const Instance& instance(int i) const { return instances_[static_cast<std::size_t>(i)]; }
  [[nodiscard]] std::size_t instances_count() const { return instances_.size(); }
  // The canonical order of contexts (Contexts::before): by their stacks of
  // (frame, iteration), outermost first, a context before those nested in it.
  [[nodiscard]] std::vector<std::pair<FrameId, std::uint32_t>> stack(int c) const {
    std::vector<std::pair<FrameId, std::uint32_t>> out;
    for (; c >= 0 && at(c).parent >= 0; c = at(c).parent) out.emplace_back(at(c).frame, at(c).iteration);
    std::reverse(out.begin(), out.end());
    return out;
  }
  // The frame instances entered from context c, by frame.
  [[nodiscard]] const std::vector<int>& entered_from(int c) const {
    static const std::vector<int> none;
    const auto it = by_parent_.find(c);
    return it == by_parent_.end() ? none : it->second;
  }
  // Iteration 0 of frame f entered from context c.
  [[nodiscard]] int enter(int c, FrameId f) const {
    for (auto i : entered_from(c))
      if (instance(i).frame == f) return instance(i).iterations[0];
    return -1;
  }
  // Every context, children before their parents.
  [[nodiscard]] std::vector<int> innermost_first() const {
    std::vector<int> order(contexts_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return at(a).depth > at(b).depth; });
    return order;
  }

 private:
  const Program& p_;
  std::uint32_t k_;
  std::size_t limit_;
  std::vector<UnrolledContext> contexts_;
  std::vector<std::vector<int>> by_frame_;
  std::vector<Instance> instances_;
  std::map<int, std::vector<int>> by_parent_;

  void expand(int c) {
    for (auto f : p_.frame(at(c).frame).children) {
      if (overflow()) return;
      const auto inst = instances_.size();
      instances_.push_back({c, f, {}});
      for (std::uint32_t j = 0; j < k_ && !overflow(); ++j) expand(add(c, f, j, inst));
    }
  }

  int add(int parent, FrameId f, std::uint32_t j, std::size_t inst) {
    const int i = static_cast<int>(contexts_.size());
    UnrolledContext x;
    x.frame = f;
    x.parent = parent;
    x.iteration = j;
    x.depth = at(parent).depth + 1;
    auto& iterations = instances_[inst].iterations;
    x.first = j == 0 ? i : iterations[0];
    x.previous = j == 0 ? -1 : iterations.back();
    x.path = at(parent).path;
    x.path.push_back(j);
    x.suffix = at(parent).suffix + "_" + std::to_string(j);
    x.text = (at(parent).text.empty() ? "" : at(parent).text + ",") + p_.frame(f).name + ":" + std::to_string(j);
    if (j > 0) contexts_[static_cast<std::size_t>(x.previous)].next = i;
    contexts_.push_back(std::move(x));
    iterations.push_back(i);
    by_frame_[f.index()].push_back(i);
    return i;
  }
};

// A tensor edge's dtype, as far as the export goes: i32 or bool scalars.
enum class Ty : std::uint8_t { unknown, i32, boolean };

Ty scalar_type(const Tensor& t) {
  if (t.kind() != Tensor::Kind::dense || !t.as_dense().shape.empty()) return Ty::unknown;
  if (t.as_dense().dtype() == DType::i32) return Ty::i32;
  if (t.as_dense().dtype() == DType::boolean) return Ty::boolean;
  return Ty::unknown;
}

// An i32 or bool scalar as a Promela int (a bool is 0 or 1).
std::string scalar_literal(const Tensor& t) {
  if (scalar_type(t) != Ty::i32) return std::get<Buffer<bool>>(t.as_dense().data)[0] ? "1" : "0";
  const auto v = std::get<Buffer<std::int32_t>>(t.as_dense().data)[0];
  // -2147483648 is not a literal: 2147483648 does not fit an int.
  return v == std::numeric_limits<std::int32_t>::min() ? "(-2147483647 - 1)" : std::to_string(v);
}

// terms joined by op, parenthesized; `none` when there are none.
std::string join(const std::vector<std::string>& terms, const char* op, const char* none) {
  if (terms.empty()) return none;
  if (terms.size() == 1) return terms[0];
  std::string out = "(";
  for (std::size_t i = 0; i < terms.size(); ++i) out += (i ? op : "") + terms[i];
  return out + ")";
}
std::string all_of(const std::vector<std::string>& terms) { return join(terms, " && ", "1"); }
std::string any_of(const std::vector<std::string>& terms) { return join(terms, " || ", "0"); }
// The negation of a condition.
std::string negation(const std::string& cond) {
  const bool name = std::all_of(cond.begin(), cond.end(),
                                [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
  return name ? "!" + cond : "!(" + cond + ")";
}
// A guard: terms joined by " && ", without parentheses around them all.
std::string conjunction(const std::vector<std::string>& terms) {
  const auto s = all_of(terms);
  return terms.size() > 1 ? s.substr(1, s.size() - 2) : s;
}

// Text safe inside a Promela comment.
std::string comment(std::string_view text) {
  std::string s(text);
  for (std::size_t i = 0; (i = s.find("*/", i)) != std::string::npos;) s.replace(i, 2, "* /");
  return s;
}

// Whether a name can be printed verbatim by Promela's printf.
bool printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f && ch != '"' && ch != '\\' && ch != '%';
  });
}

// A statement sequence: statements joined by "; ".
class Seq {
 public:
  Seq& operator<<(const std::string& s) {
    if (!s.empty()) text_ += (text_.empty() ? "" : "; ") + s;
    return *this;
  }
  Seq& operator<<(const Seq& s) { return *this << s.text_; }
  [[nodiscard]] const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// One way a transition can fire: a guard and what it does, atomically.
struct Option {
  std::string guard;
  Seq body;
  std::string what;  // the transition, for a comment
};

class ControlFlowExporter {
 public:
  static constexpr std::size_t kMaxContexts = 4096;
  static constexpr std::size_t kMonitorStep = 64;

  ControlFlowExporter(const Program& p, std::uint32_t k) : p_(p), k_(k), u_(p, k, kMaxContexts) {}

  std::string run() {
    if (u_.overflow())
      throw InputError("X-PROMELA", "", "graph '" + p_.name() + "'",
                       "its loops unrolled to " + std::to_string(k_) + " iterations have more than " +
                           std::to_string(kMaxContexts) + " contexts; lower --max-iterations");
    check_names();
    infer_types();
    check_values();
    for (std::size_t n = 0; n < p_.nodes().size(); ++n) check_node(NodeId(n));
    // Before writing anything: the writer takes every value it meets for an i32 or bool scalar.
    if (!problems_.empty()) throw InputError(std::move(problems_));
    std::ostringstream out;
    out << "/* " << comment(p_.name()) << ": exported by tfsem (hash " << p_.hash_hex() << "), loops unrolled to "
        << k_ << " iterations */\n"
        << "#define EMPTY 0\n#define LIVE 1\n#define DEAD 2\n"
        << declarations() << macros() << worker() << monitor();
    return out.str();
  }

 private:
  const Program& p_;
  std::uint32_t k_;
  Unrolling u_;
  std::vector<Ty> types_;      // by edge: a tensor edge's dtype
  std::vector<Ty> var_types_;  // by variable
  std::vector<Diagnostic> problems_;

  void refuse(std::string_view where, std::string_view subject, const std::string& why) {
    problems_.push_back({"X-PROMELA", std::string(where), std::string(subject),
                         why + "; the Promela export of control flow supports i32 and bool scalars only"});
  }
  static std::string node_subject(const Node& n) { return "node '" + n.name() + "'"; }
  static std::string edge_subject(const Edge& e) { return "edge '" + e.name() + "'"; }

  // ---- What is exported: names the monitor prints, dtypes, functions. ----

  void check_names() {
    for (const auto& n : p_.nodes())
      if (!printable(n.name())) refuse(p_.where(n), node_subject(n), "its name cannot be printed by Promela");
    for (const auto& v : p_.variables())
      if (!printable(v.name)) refuse(v.where, "variable '" + v.name + "'", "its name cannot be printed by Promela");
    for (const auto& e : p_.edges())
      if (e.is_output() && !printable(p_.fetch(e)))
        refuse(p_.where(e), edge_subject(e), "its fetch name cannot be printed by Promela");
    for (const auto& f : p_.frames())
      if (!printable(f.name)) refuse("", "frame '" + f.name + "'", "its name cannot be printed by Promela");
  }

  // Each tensor edge's dtype, from the input edges, constants and variables,
  // through the functions, to a fixed point (loops feed their Merges back).
  void infer_types() {
    types_.assign(p_.edges().size(), Ty::unknown);
    for (const auto& v : p_.variables()) var_types_.push_back(scalar_type(v.initial));
    for (const auto& [e, initial] : p_.inputs())
      if (const auto* t = std::get_if<Tensor>(&initial)) types_[e.index()] = scalar_type(*t);
    for (bool changed = true; changed;) {
      changed = false;
      for (auto n : p_.topological_order()) {
        const auto& node = p_.node(n);
        const auto out = output_types(n);
        for (std::size_t j = 0; j < node.out.size(); ++j)
          if (auto& t = types_[node.out[j].index()]; t == Ty::unknown && out[j] != Ty::unknown) {
            t = out[j];
            changed = true;
          }
      }
    }
  }

  [[nodiscard]] Ty type(EdgeId e) const { return types_[e.index()]; }

  // The dtypes n gives its outputs, as far as its inputs' are known.
  [[nodiscard]] std::vector<Ty> output_types(NodeId n) const {
    const auto& node = p_.node(n);
    const auto in = [&](std::size_t i) { return i < node.in.size() ? type(node.in[i]) : Ty::unknown; };
    std::vector<Ty> out(node.out.size(), Ty::unknown);
    switch (node.op.kind) {
      case OpKind::function: {
        const auto f = node.op.fn->name;
        Ty t = Ty::unknown;
        if (f == "Identity" || f == "LoopCond" || f == "Copy") t = in(0);
        else if (f == "Snd") t = in(1);
        else if (f == "Const") t = scalar_type(std::get<Tensor>(node.attrs().at("value")));
        else if (f == "Choice") t = choice_type(node);
        else if (f == "Add" || f == "Sub" || f == "Mul" || f == "Neg") t = Ty::i32;
        else if (f == "Less" || f == "Equal") t = Ty::boolean;
        std::fill(out.begin(), out.end(), t);
        break;
      }
      case OpKind::read: out[0] = var_types_[p_.variable_of(n)->index()]; break;
      case OpKind::switch_:
      case OpKind::enter:
      case OpKind::exit:
      case OpKind::next_iteration: std::fill(out.begin(), out.end(), in(0)); break;
      case OpKind::merge:
        for (std::size_t i = 0; i < node.in.size() && out[0] == Ty::unknown; ++i) out[0] = in(i);
        if (out.size() > 1) out[1] = Ty::i32;  // the index of the input taken
        break;
      default: break;
    }
    return out;
  }

  // The dtype of a Choice's values, if they are scalars of one dtype.
  static Ty choice_type(const Node& n) {
    const auto& values = std::get<std::vector<Tensor>>(n.attrs().at("values"));
    if (values.empty()) return Ty::unknown;
    const auto t = scalar_type(values[0]);
    for (const auto& v : values)
      if (scalar_type(v) != t) return Ty::unknown;
    return t;
  }

  void check_values() {
    for (const auto& v : p_.variables())
      if (scalar_type(v.initial) == Ty::unknown)
        refuse(v.where, "variable '" + v.name + "'",
               "value " + v.initial.to_string(8) + " is not an i32 or bool scalar");
    for (std::size_t i = 0; i < p_.edges().size(); ++i) {
      const auto& e = p_.edge(EdgeId(i));
      if (const auto* t = std::get_if<Tensor>(&p_.initial(EdgeId(i))); t != nullptr && scalar_type(*t) == Ty::unknown)
        refuse(p_.where(e), edge_subject(e), "value " + t->to_string(8) + " is not an i32 or bool scalar");
      if (e.is_output() && !p_.fetch(e).empty() && e.kind == EdgeKind::variable)
        refuse(p_.where(e), edge_subject(e), "a fetched variable edge");
    }
  }

  // Refuses n when firing it could give a value the export does not model
  // (an error, a tensor that is not a scalar) or it applies another function.
  void check_node(NodeId n) {
    const auto& node = p_.node(n);
    const auto subject = node_subject(node);
    const auto in = [&](std::size_t i) { return type(node.in[i]); };
    switch (node.op.kind) {
      case OpKind::function: {
        const auto f = std::string(node.op.fn->name);
        if (p_.variable_of(n))
          refuse(p_.where(node), subject, kDerefRefusal);
        else if (f != "Copy" && f != "Const" && f != "Choice" && function_expression(f).empty())
          refuse(p_.where(node), subject, "function " + f + " is not exported");
        else if (f == "Const" && scalar_type(std::get<Tensor>(node.attrs().at("value"))) == Ty::unknown)
          refuse(p_.where(node), subject, "its value is not an i32 or bool scalar");
        else if (f == "Choice" && choice_type(node) == Ty::unknown)
          refuse(p_.where(node), subject, "its values are not scalars of one dtype, i32 or bool");
        else if ((f == "Add" || f == "Sub" || f == "Mul" || f == "Neg") &&
                 std::any_of(node.in.begin(), node.in.end(), [&](EdgeId d) { return type(d) == Ty::boolean; }))
          refuse(p_.where(node), subject, f + " of a bool is an error (V-ERROR), not exported");
        else if ((f == "Less" || f == "Equal") && in(0) != Ty::unknown && in(1) != Ty::unknown && in(0) != in(1))
          refuse(p_.where(node), subject, f + " of an i32 and a bool is an error (V-ERROR), not exported");
        break;
      }
      case OpKind::assign: check_assign(n); break;
      case OpKind::send:
      case OpKind::recv: refuse(p_.where(node), subject, p_.label(n) + " in a graph with control flow is not exported"); break;
      case OpKind::switch_:
        if (in(1) == Ty::i32) refuse(p_.where(node), subject, "an i32 predicate is an error (C-SWITCH), not exported");
        break;
      case OpKind::merge:
        for (std::size_t i = 1; i < node.in.size(); ++i)
          if (in(i) != Ty::unknown && in(0) != Ty::unknown && in(i) != in(0))
            refuse(p_.where(node), subject, "its inputs are an i32 and a bool");
        break;
      default: break;
    }
  }

  void check_assign(NodeId n) {
    const auto& node = p_.node(n);
    const auto f = std::string(node.op.fn->name);
    const auto var = var_types_[p_.variable_of(n)->index()];
    const auto v = type(node.in[1]);
    if (f != "Snd" && f != "Add" && f != "Sub" && f != "Mul")
      refuse(p_.where(node), node_subject(node), p_.label(n) + " is not exported");
    else if (f == "Snd" && var != Ty::unknown && v != Ty::unknown && var != v)
      refuse(p_.where(node), node_subject(node), "it writes a value of another dtype than the variable's");
    else if (f != "Snd" && (var == Ty::boolean || v == Ty::boolean))
      refuse(p_.where(node), node_subject(node), p_.label(n) + " of a bool is an error (V-ERROR), not exported");
  }

  // The expression function f computes from the scratch a0, a1, or "" when f
  // is not exported this way.
  static std::string function_expression(std::string_view f) {
    if (f == "Identity" || f == "LoopCond") return "a0";
    if (f == "Snd") return "a1";
    if (f == "Add") return "a0 + a1";
    if (f == "Sub") return "a0 - a1";
    if (f == "Mul") return "a0 * a1";
    if (f == "Neg") return "-a0";
    if (f == "Less") return "(a0 < a1)";
    if (f == "Equal") return "(a0 == a1)";
    return "";
  }

  // ---- Contexts and slots (C-SLOT), as semantics.cpp computes them. ----

  [[nodiscard]] const UnrolledContext& ctx(int c) const { return u_.at(c); }
  [[nodiscard]] const Node& node(NodeId n) const { return p_.node(n); }
  [[nodiscard]] const Edge& edge(EdgeId e) const { return p_.edge(e); }
  [[nodiscard]] bool is_tensor(EdgeId e) const { return edge(e).kind == EdgeKind::tensor; }

  // Whether (e, c) is a slot: c is a context of e's frame, and a loop
  // invariant lives in iteration 0 only.
  [[nodiscard]] bool has_slot(EdgeId e, int c) const {
    return ctx(c).frame == edge(e).frame && (!edge(e).invariant || ctx(c).first == c);
  }
  // Semantics::in_slot: where input d of a transition in c is read.
  [[nodiscard]] int in_slot(EdgeId d, int c) const { return edge(d).invariant ? ctx(c).first : c; }
  // Semantics::out_context; -1 past the last unrolled iteration.
  [[nodiscard]] int out_context(NodeId n, int c) const {
    switch (node(n).op.kind) {
      case OpKind::enter: return u_.enter(c, edge(node(n).out[0]).frame);
      case OpKind::exit: return ctx(c).parent;
      case OpKind::next_iteration: return ctx(c).next;
      default: return c;
    }
  }
  // Semantics::record_context: an Exit's firing is recorded in the parent context.
  [[nodiscard]] int record_context(NodeId n, int c) const {
    return node(n).op.kind == OpKind::exit ? ctx(c).parent : c;
  }
  // The record contexts of n: every context of its frame (an Exit's: of the parent frame).
  [[nodiscard]] const std::vector<int>& record_contexts(NodeId n) const {
    const auto& nd = node(n);
    return u_.of_frame(nd.op.kind == OpKind::exit ? p_.frame(nd.frame).parent : nd.frame);
  }
  // rules::Merge::waits_for: a loop's Merge waits for the entering value in
  // iteration 0 and for its NextIteration's after.
  [[nodiscard]] bool expected(NodeId m, EdgeId d, int c) const {
    const auto& in = node(m).in;
    const bool loop = std::any_of(in.begin(), in.end(), [&](EdgeId e) { return edge(e).back; });
    return !loop || edge(d).back == (ctx(c).iteration > 0);
  }

  // ---- Names of the globals and macros. ----

  [[nodiscard]] std::string sfx(int c) const { return ctx(c).suffix; }
  [[nodiscard]] std::string status(EdgeId e, int c) const { return "s" + std::to_string(e.value) + sfx(c); }
  [[nodiscard]] std::string value(EdgeId e, int c) const { return "v" + std::to_string(e.value) + sfx(c); }
  [[nodiscard]] std::string fired(NodeId n, int c) const { return "f" + std::to_string(n.value) + sfx(c); }
  [[nodiscard]] std::string en(NodeId n, int c) const { return "EN" + std::to_string(n.value) + sfx(c); }
  [[nodiscard]] std::string xd(NodeId x, int c) const { return "XD" + std::to_string(x.value) + sfx(c); }
  [[nodiscard]] std::string of_context(const char* what, int c) const {
    return what + std::to_string(ctx(c).frame.value) + sfx(c);
  }
  [[nodiscard]] std::string pres(int c) const { return c == 0 ? "1" : of_context("pres", c); }
  [[nodiscard]] std::string done(int c) const { return of_context("done", c); }
  [[nodiscard]] std::string busy(int c) const { return of_context("busy", c); }
  [[nodiscard]] std::string act(int c) const { return c == 0 ? "1" : of_context("act", c); }
  [[nodiscard]] std::string last(int c) const { return of_context("LAST", c); }
  [[nodiscard]] std::string complete(int inst) const {
    const auto& i = u_.instance(inst);
    return "CPL" + std::to_string(i.frame.value) + sfx(i.parent);
  }
  [[nodiscard]] std::string transition_text(NodeId n, int c) const {
    return c == 0 ? node(n).name().str() : node(n).name() + "[" + ctx(c).text + "]";
  }

  // ---- Conditions on slots. ----

  [[nodiscard]] std::string holds(EdgeId d, int c, const char* what) const {
    return status(d, in_slot(d, c)) + " == " + what;
  }
  [[nodiscard]] std::string nonempty(EdgeId d, int c) const { return status(d, in_slot(d, c)) + " != EMPTY"; }
  [[nodiscard]] std::string any_dead(NodeId n, int c) const {
    std::vector<std::string> terms;
    for (auto d : node(n).control_in) terms.push_back(holds(d, c, "DEAD"));
    if (node(n).op.kind != OpKind::merge)
      for (auto d : node(n).in) terms.push_back(holds(d, c, "DEAD"));
    return any_of(terms);
  }
  [[nodiscard]] std::string any_live(NodeId m, int c) const {
    std::vector<std::string> terms;
    for (auto d : node(m).in) terms.push_back(holds(d, c, "LIVE"));
    return any_of(terms);
  }

  // Semantics::locally_enabled: t has not fired (C-ONCE), its control inputs
  // hold contents, and its data inputs what its rule needs.
  [[nodiscard]] std::string local_enabled(NodeId n, int c) const {
    const auto& nd = node(n);
    std::vector<std::string> terms{negation(fired(n, record_context(n, c)))};
    for (auto d : nd.control_in) terms.push_back(nonempty(d, c));
    switch (nd.op.kind) {
      case OpKind::merge: {  // C-MERGE: some input is live; C-MERGE-DEAD: every one it waits for is DEAD
        std::vector<std::string> dead;
        for (auto d : nd.in)
          if (expected(n, d, c)) dead.push_back(holds(d, c, "DEAD"));
        terms.push_back(any_of({any_live(n, c), all_of(dead)}));
        break;
      }
      case OpKind::exit:  // C-EXIT: a live value and no DEAD control input
        terms.push_back(holds(nd.in[0], c, "LIVE"));
        for (auto d : nd.control_in) terms.push_back(holds(d, c, "LIVE"));
        break;
      default:  // S-ENABLED: every incoming edge holds its contents
        for (auto d : nd.in) terms.push_back(nonempty(d, c));
        break;
    }
    return all_of(terms);
  }

  // rules::Exit::input_dead: everything is there, and the data or a control input is DEAD.
  [[nodiscard]] std::string exit_input_dead(NodeId x, int c) const {
    const auto& nd = node(x);
    std::vector<std::string> terms{nonempty(nd.in[0], c)}, dead{holds(nd.in[0], c, "DEAD")};
    for (auto d : nd.control_in) {
      terms.push_back(nonempty(d, c));
      dead.push_back(holds(d, c, "DEAD"));
    }
    terms.push_back(any_of(dead));
    return all_of(terms);
  }

  // ---- Statements on slots. ----

  [[nodiscard]] std::string clear(EdgeId d, int c) const {
    return status(d, c) + " = EMPTY" + (is_tensor(d) ? "; " + value(d, c) + " = 0" : "");
  }
  // Firing::consume: the input is EMPTY afterwards, but a loop invariant stays (C-ENTER-CONST).
  [[nodiscard]] std::string consume(EdgeId d, int c) const { return edge(d).invariant ? "" : clear(d, c); }
  // v: the value of a tensor; ignored for GO and variable handles.
  [[nodiscard]] std::string put(EdgeId e, int c, const std::string& v) const {
    return status(e, c) + " = LIVE" + (is_tensor(e) ? "; " + value(e, c) + " = " + v : "");
  }
  [[nodiscard]] std::string put_dead(EdgeId e, int c) const {
    return status(e, c) + " = DEAD" + (is_tensor(e) ? "; " + value(e, c) + " = 0" : "");
  }

  // ---- The firings of a transition (step.cpp), each one Option. ----

  // First, by every rule: record the firing (C-ONCE) and consume the control
  // inputs (S-CTRL-1).
  [[nodiscard]] Seq start(NodeId n, int c) const {
    Seq s;
    s << fired(n, record_context(n, c)) + " = 1";
    for (auto d : node(n).control_in) s << consume(d, c);
    return s;
  }
  // The tensor inputs' values into the scratch a0, a1, by port.
  [[nodiscard]] Seq load(NodeId n, int c) const {
    Seq s;
    int i = 0;
    for (auto d : node(n).in)
      if (is_tensor(d)) s << "a" + std::to_string(i++) + " = " + value(d, in_slot(d, c));
    return s;
  }
  [[nodiscard]] Seq consume_inputs(NodeId n, int c) const {
    Seq s;
    for (auto d : node(n).in) s << consume(d, c);
    return s;
  }
  // S-CTRL-2: GO on every outgoing control edge, in context oc.
  [[nodiscard]] Seq control_go(NodeId n, int oc) const {
    Seq s;
    for (auto e : node(n).control_out) s << put(e, oc, "");
    return s;
  }
  // DEAD on every outgoing edge, control edges included, in context oc.
  [[nodiscard]] Seq all_dead(NodeId n, int oc) const {
    Seq s;
    for (auto e : node(n).out) s << put_dead(e, oc);
    for (auto e : node(n).control_out) s << put_dead(e, oc);
    return s;
  }

  // The options of transition (n, c): the rule its inputs select, and each
  // result of a relation.
  [[nodiscard]] std::vector<Option> options(NodeId n, int c) const {
    switch (node(n).op.kind) {
      case OpKind::merge: return merge_options(n, c);
      case OpKind::exit: return exit_options(n, c);
      case OpKind::next_iteration: return next_iteration_options(n, c);
      default: return plain_options(n, c);
    }
  }

  [[nodiscard]] std::string enabled(NodeId n, int c, const std::string& more = "") const {
    std::vector<std::string> terms;
    if (c != 0) terms.push_back(act(c));
    terms.push_back(en(n, c));
    if (!more.empty()) terms.push_back(more);
    return conjunction(terms);
  }

  // Every node but Merge, Exit and NextIteration: C-DEAD with a DEAD input,
  // else its own rule, one option per result.
  [[nodiscard]] std::vector<Option> plain_options(NodeId n, int c) const {
    const auto what = transition_text(n, c);
    const auto dead = any_dead(n, c);
    std::vector<Option> out;
    Seq fire_dead = start(n, c);  // C-DEAD (fire_dead)
    fire_dead << consume_inputs(n, c) << all_dead(n, out_context(n, c));
    out.push_back({enabled(n, c, dead), fire_dead, what + " (C-DEAD)"});
    for (auto& result : live_results(n, c)) {
      Seq body = start(n, c);
      body << result;
      out.push_back({enabled(n, c, negation(dead)), body, what});
    }
    return out;
  }

  // What n does with live inputs in c, after start(): one sequence per result.
  [[nodiscard]] std::vector<Seq> live_results(NodeId n, int c) const {
    const auto& nd = node(n);
    const int oc = out_context(n, c);
    Seq s;
    switch (nd.op.kind) {
      case OpKind::function: return function_results(n, c);
      case OpKind::var: s << put(nd.out[0], oc, ""); break;  // S-VAR
      case OpKind::read:  // S-READ-1..3
        s << consume_inputs(n, c) << put(nd.out[0], oc, "x" + std::to_string(p_.variable_of(n)->value));
        break;
      case OpKind::assign: s << assign(n, c); break;
      case OpKind::switch_: s << switch_outputs(n, c); break;
      case OpKind::enter:  // C-ENTER: into iteration 0 of the frame instance entered from c
      case OpKind::ref_identity:  // C-REF
        s << load(n, c) << consume_inputs(n, c) << put(nd.out[0], oc, "a0");
        break;
      default: break;
    }
    s << control_go(n, oc);
    return {s};
  }

  // S-FN-1..3; S-NONDET: one sequence per value of a Choice.
  [[nodiscard]] std::vector<Seq> function_results(NodeId n, int c) const {
    const auto& nd = node(n);
    const auto f = nd.op.fn->name;
    Seq base;
    base << load(n, c) << consume_inputs(n, c);
    std::vector<std::string> values;
    if (f == "Choice") {
      for (const auto& v : std::get<std::vector<Tensor>>(nd.attrs().at("values"))) values.push_back(scalar_literal(v));
    } else if (f == "Const") {
      values.push_back(scalar_literal(std::get<Tensor>(nd.attrs().at("value"))));
    } else if (f == "Copy") {
      values.push_back("a0");
    } else {
      values.push_back(function_expression(f));
    }
    std::vector<Seq> out;
    for (const auto& v : values) {
      Seq s = base;
      for (auto e : nd.out) s << put(e, c, v);
      s << control_go(n, c);
      out.push_back(s);
    }
    return out;
  }

  // S-ASSIGN-1..6: VarValue(x) = f(w, v), w = VarValue(x) before.
  [[nodiscard]] Seq assign(NodeId n, int c) const {
    const auto x = "x" + std::to_string(p_.variable_of(n)->value);
    Seq s;
    s << "a1 = " + value(node(n).in[1], in_slot(node(n).in[1], c)) << consume_inputs(n, c) << "a0 = " + x;
    const auto f = function_expression(node(n).op.fn->name);
    if (!f.empty()) s << x + " = " + f;
    return s;
  }

  // C-SWITCH: the data to output 1 when the predicate is true, to output 0
  // when it is false, and DEAD to the other.
  [[nodiscard]] Seq switch_outputs(NodeId n, int c) const {
    const auto& nd = node(n);
    const auto d = nd.in[0], pred = nd.in[1];
    Seq s;
    if (is_tensor(d)) s << "a0 = " + value(d, in_slot(d, c));
    s << "a1 = " + value(pred, in_slot(pred, c)) << consume_inputs(n, c);
    Seq taken, not_taken;
    taken << put(nd.out[1], c, "a0") << put_dead(nd.out[0], c);
    not_taken << put(nd.out[0], c, "a0") << put_dead(nd.out[1], c);
    s << "if :: a1 -> " + taken.str() + " :: else -> " + not_taken.str() + " fi";
    return s;
  }

  // C-MERGE: one option per live input (several are the defect
  // C-MERGE-TWO-LIVE), which alone is consumed (a loop invariant stays,
  // C-ENTER-CONST); C-MERGE-DEAD: DEAD out.
  [[nodiscard]] std::vector<Option> merge_options(NodeId m, int c) const {
    const auto& nd = node(m);
    const auto what = transition_text(m, c);
    std::vector<Option> out;
    for (std::size_t i = 0; i < nd.in.size(); ++i) {
      const auto d = nd.in[i];
      Seq body = start(m, c);
      if (is_tensor(d)) body << "r0 = " + value(d, in_slot(d, c));
      if (has_slot(d, c)) body << consume(d, c);
      body << put(nd.out[0], c, "r0");
      if (nd.out.size() > 1) body << put(nd.out[1], c, std::to_string(i));
      body << control_go(m, c);
      out.push_back({enabled(m, c, holds(d, c, "LIVE")), body, what + " (input " + std::to_string(i) + ")"});
    }
    Seq dead = start(m, c);
    dead << consume_inputs(m, c) << all_dead(m, c);
    out.push_back({enabled(m, c, negation(any_live(m, c))), dead, what + " (C-MERGE-DEAD)"});
    return out;
  }

  // C-EXIT: a live value to the parent context, once per frame instance.
  // Its C-EXIT-DEAD options are the instance's (dead_exit_options).
  [[nodiscard]] std::vector<Option> exit_options(NodeId x, int c) const {
    const auto& nd = node(x);
    const int parent = ctx(c).parent;
    Seq body = start(x, c);
    body << load(x, c) << consume_inputs(x, c) << put(nd.out[0], parent, "a0") << control_go(x, parent);
    return {{enabled(x, c), body, transition_text(x, c)}};
  }

  // C-EXIT-DEAD: once the frame instance is complete, an Exit whose input in
  // the last iteration is DEAD delivers DEAD, from that iteration.
  [[nodiscard]] std::vector<Option> dead_exit_options(int inst) const {
    const auto& instance = u_.instance(inst);
    std::vector<Option> out;
    for (auto x : p_.frame(instance.frame).exits) {
      for (auto c : instance.iterations) {
        std::vector<std::string> guard;
        if (instance.parent != 0) guard.push_back(act(instance.parent));
        guard.insert(guard.end(), {complete(inst), last(c), negation(fired(x, instance.parent)), xd(x, c)});
        Seq body = start(x, c);
        body << consume_inputs(x, c) << all_dead(x, instance.parent);
        out.push_back({conjunction(guard), body, transition_text(x, c) + " (C-EXIT-DEAD)"});
      }
    }
    return out;
  }

  // C-NEXT: the value to iteration i + 1; C-NEXT-DEAD: nothing. A live value
  // for iteration max_iterations stops the search, as tfsem check stops.
  [[nodiscard]] std::vector<Option> next_iteration_options(NodeId n, int c) const {
    const auto what = transition_text(n, c);
    const auto dead = any_dead(n, c);
    Seq stop = start(n, c);
    stop << consume_inputs(n, c);
    Seq live = start(n, c);
    if (const int next = ctx(c).next; next >= 0) {
      live << load(n, c) << consume_inputs(n, c) << put(node(n).out[0], next, "a0");
    } else {
      live << "printf(\"BEYOND max-iterations " + std::to_string(k_) + " in loop '" + p_.frame(node(n).frame).name +
                  "'\\n\")"
           << "assert(false)";
    }
    return {{enabled(n, c, dead), stop, what + " (C-NEXT-DEAD)"}, {enabled(n, c, negation(dead)), live, what}};
  }

  // ---- C-DONE and C-BOUND over the derived bits. ----

  // The iteration n before c in its frame instance.
  [[nodiscard]] int back(int c, std::uint32_t n) const {
    for (; n > 0; --n) c = ctx(c).previous;
    return c;
  }
  // C-BOUND: iteration j may start when iteration j - parallel_iterations is
  // done ("" when j < parallel_iterations).
  [[nodiscard]] std::string bound(int c) const {
    const auto in_flight = p_.frame(ctx(c).frame).parallel_iterations;
    return ctx(c).iteration < in_flight ? "" : done(back(c, in_flight));
  }
  // A context exists when anything is in it or nested in it: a slot, a
  // fired record, or iteration 0 of a frame instance entered from it.
  [[nodiscard]] std::string presence(int c) const {
    const auto& frame = p_.frame(ctx(c).frame);
    std::vector<std::string> terms;
    for (auto e : frame.slots)
      if (has_slot(e, c)) terms.push_back(status(e, c) + " != EMPTY");
    for (auto n : frame.records) terms.push_back(fired(n, c));
    for (auto i : u_.entered_from(c)) terms.push_back(pres(u_.instance(i).iterations[0]));
    return any_of(terms);
  }
  // Some transition in c, or nested in it, is enabled, given that c is
  // started (visit(): the transitions of c, of every iteration of the frame
  // instances entered from c that is started, and their dead Exits once
  // complete).
  [[nodiscard]] std::string busyness(int c) const {
    std::vector<std::string> terms;
    for (auto n : p_.frame(ctx(c).frame).nodes) terms.push_back(en(n, c));
    for (auto i : u_.entered_from(c)) {
      const auto& inst = u_.instance(i);
      for (auto j : inst.iterations) {
        std::vector<std::string> started{pres(j), busy(j)};
        if (const auto b = bound(j); !b.empty()) started.insert(started.begin() + 1, b);
        terms.push_back(all_of(started));
      }
      std::vector<std::string> dead;
      for (auto x : p_.frame(inst.frame).exits) {
        std::vector<std::string> from_last;
        for (auto j : inst.iterations) from_last.push_back(all_of({last(j), xd(x, j)}));
        dead.push_back(all_of({negation(fired(x, c)), any_of(from_last)}));
      }
      if (!dead.empty()) terms.push_back(all_of({complete(i), any_of(dead)}));
    }
    return any_of(terms);
  }
  // C-DONE: iteration j - 1 is done (for j = 0: every Enter has fired), c
  // exists, and nothing in it is enabled.
  [[nodiscard]] std::string doneness(int c) const {
    const auto& x = ctx(c);
    std::vector<std::string> terms{pres(c)};
    if (x.iteration > 0) {
      terms.push_back(done(x.previous));
    } else {
      for (auto e : p_.frame(x.frame).enters) terms.push_back(fired(e, x.parent));
    }
    terms.push_back(negation(busy(c)));
    return all_of(terms);
  }
  // The transitions of c may fire: c exists and is started (C-BOUND).
  [[nodiscard]] std::string activity(int c) const {
    std::vector<std::string> terms;
    if (ctx(c).parent != 0) terms.push_back(act(ctx(c).parent));
    terms.push_back(pres(c));
    if (const auto b = bound(c); !b.empty()) terms.push_back(b);
    return all_of(terms);
  }
  // The statements that recompute every derived bit, each after those it reads.
  [[nodiscard]] std::vector<std::string> update() const {
    std::vector<std::string> out;
    const auto order = u_.innermost_first();
    for (auto c : order)
      if (c != 0) out.push_back(pres(c) + " = " + presence(c));
    for (auto c : order) {
      if (c == 0) continue;
      out.push_back(busy(c) + " = " + busyness(c));
      out.push_back(done(c) + " = " + doneness(c));
    }
    for (int c = 1; c < static_cast<int>(u_.size()); ++c) out.push_back(act(c) + " = " + activity(c));
    return out;
  }

  // ---- The model's text. ----

  [[nodiscard]] std::string declarations() const {
    std::ostringstream out;
    for (std::size_t x = 0; x < p_.variables().size(); ++x) {
      const auto& v = p_.variable(VarId(x));
      out << "int x" << x << " = " << (var_types_[x] == Ty::unknown ? "0" : scalar_literal(v.initial)) << "; /* "
          << comment(v.name) << " */\n";
    }
    out << "hidden int a0, a1, r0; /* a step's scratch values */\n"
        << "hidden byte listed; /* the monitor's: a list has begun */\n";
    for (std::size_t i = 0; i < p_.edges().size(); ++i) out << slot_declaration(EdgeId(i));
    for (std::size_t n = 0; n < p_.nodes().size(); ++n) {
      std::vector<std::string> names;
      for (auto c : record_contexts(NodeId(n))) names.push_back(fired(NodeId(n), c));
      out << "bit " << list(names) << "; /* fired: " << comment(p_.node(NodeId(n)).name()) << " */\n";
    }
    for (std::size_t c = 1; c < u_.size(); ++c) {
      const int i = static_cast<int>(c);
      out << "bit " << pres(i) << ", " << done(i) << ", " << act(i) << "; hidden byte " << busy(i) << "; /* "
          << comment(ctx(i).text) << " */\n";
    }
    return out.str();
  }

  // Edge e's slots: its status bytes and, for a tensor edge, its values; an
  // input edge's slot starts with its contents.
  [[nodiscard]] std::string slot_declaration(EdgeId e) const {
    const auto& x = edge(e);
    std::vector<std::string> status_names, value_names;
    for (auto c : u_.of_frame(x.frame)) {
      if (!has_slot(e, c)) continue;
      status_names.push_back(status(e, c) + (x.is_input() ? " = LIVE" : ""));
      const auto* t = std::get_if<Tensor>(&p_.initial(e));
      const bool initial = t != nullptr && scalar_type(*t) != Ty::unknown;
      value_names.push_back(value(e, c) + (initial ? " = " + scalar_literal(*t) : ""));
    }
    std::string out = "byte " + list(status_names) + ";";
    if (x.kind == EdgeKind::tensor) out += " int " + list(value_names) + ";";
    return out + " /* " + comment(x.name()) + " */\n";
  }
  static std::string list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  // C-ENABLED's local conditions of each transition, an Exit's dead input,
  // and which frame instances are complete and which iteration is their last.
  [[nodiscard]] std::string macros() const {
    std::ostringstream out;
    for (std::size_t i = 0; i < p_.nodes().size(); ++i) {
      const NodeId n(i);
      for (auto c : u_.of_frame(node(n).frame)) {
        out << "#define " << en(n, c) << " " << local_enabled(n, c) << "\n";
        if (node(n).op.kind == OpKind::exit) out << "#define " << xd(n, c) << " " << exit_input_dead(n, c) << "\n";
      }
    }
    for (std::size_t i = 0; i < u_.instances_count(); ++i) {
      const auto& inst = u_.instance(static_cast<int>(i));
      std::vector<std::string> all{pres(inst.iterations[0])};
      for (auto j : inst.iterations) all.push_back(any_of({negation(pres(j)), done(j)}));
      out << "#define " << complete(static_cast<int>(i)) << " " << all_of(all) << "\n";
      for (auto j : inst.iterations)
        out << "#define " << last(j) << " "
            << (ctx(j).next < 0 ? pres(j) : all_of({pres(j), negation(pres(ctx(j).next))})) << "\n";
    }
    return out.str();
  }

  // One process fires every transition: one d_step option per way of firing,
  // then the derived bits are recomputed, in the same atomic step.
  [[nodiscard]] std::string worker() const {
    std::ostringstream out;
    out << "active proctype graph() {\nend_step:\n  atomic {\n    if\n";
    auto write = [&](const std::vector<Option>& options) {
      for (const auto& o : options)
        out << "    :: d_step { " << o.guard << " -> " << o.body.str() << " } /* " << comment(o.what) << " */\n";
    };
    for (std::size_t i = 0; i < p_.nodes().size(); ++i)
      for (auto c : u_.of_frame(node(NodeId(i)).frame)) write(options(NodeId(i), c));
    for (std::size_t i = 0; i < u_.instances_count(); ++i) write(dead_exit_options(static_cast<int>(i)));
    out << "    fi";
    if (const auto statements = update(); !statements.empty()) {
      out << ";\n    d_step { /* pres, done (C-DONE) and act (C-BOUND) of every loop context */\n";
      for (std::size_t i = 0; i < statements.size(); ++i)
        out << "      " << statements[i] << (i + 1 < statements.size() ? ";\n" : "\n");
      out << "    }";
    }
    out << "\n  };\n  goto end_step\n}\n";
    return out.str();
  }

  // ---- The monitor: the outcome of a terminal state, as tfsem check prints it. ----

  static std::string print(const std::string& text) { return "printf(\"" + text + "\")"; }

  // Prints a live value v of an edge of this kind and dtype, after `name`.
  static std::string print_value(const std::string& name, const std::string& v, EdgeKind kind, Ty t) {
    if (kind == EdgeKind::control) return print(name + "GO");
    if (t == Ty::boolean)
      return "if :: " + v + " -> " + print(name + "bool:true") + " :: else -> " + print(name + "bool:false") + " fi";
    // Through r0: SPIN hides a variable that only printf reads (spin -o2), and
    // states that differ in it only would merge.
    return "r0 = " + v + "; printf(\"" + name + "i32:%d\", r0)";
  }
  // Prints a slot's contents after `name`: its value, GO, DEAD or EMPTY.
  static std::string print_contents(const std::string& name, const std::string& status, const std::string& v,
                                    EdgeKind kind, Ty t) {
    return "if :: " + status + " == LIVE -> " + print_value(name, v, kind, t) + " :: " + status + " == DEAD -> " +
           print(name + "DEAD") + " :: else -> " + print(name + "EMPTY") + " fi";
  }

  // An element of a list printed when cond holds: the list's head before the first.
  static std::string print_item(const std::string& cond, const std::string& text, const std::string& head) {
    return "if :: " + cond + " -> if :: listed -> " + print(",") + " :: else -> " + print(head) + "; listed = 1 fi; " +
           print(text) + " :: else fi";
  }

  [[nodiscard]] std::string monitor() const {
    std::vector<std::string> s{print("OUTCOME ")};
    std::string sep;
    for (std::size_t i = 0; i < p_.edges().size(); ++i) {
      const auto& e = edge(EdgeId(i));
      if (!e.is_output() || p_.fetch(e).empty()) continue;
      const EdgeId id(i);
      s.push_back(print_contents(sep + std::string(p_.fetch(e)) + "=", status(id, 0), value(id, 0), e.kind, type(id)));
      sep = "; ";
    }
    for (std::size_t x = 0; x < p_.variables().size(); ++x) {
      const auto& name = p_.variable(VarId(x)).name;
      s.push_back(print_value(sep + name + "=", "x" + std::to_string(x), EdgeKind::tensor, var_types_[x]));
      sep = "; ";
    }
    s.push_back("listed = 0");
    for (const auto& item : stuck()) s.push_back(item);
    s.push_back("listed = 0");
    for (const auto& item : violations()) s.push_back(item);
    s.push_back(print("\\n"));
    // In d_steps of kMonitorStep statements: SPIN bounds the jumps in one d_step.
    std::string out = "active proctype outcome() {\n  atomic { timeout -> d_step {\n";
    for (std::size_t i = 0; i < s.size(); ++i) {
      out += "    " + s[i];
      if (i + 1 == s.size()) out += "\n";
      else if ((i + 1) % kMonitorStep == 0) out += "\n  }; d_step {\n";
      else out += ";\n";
    }
    return out + "  } }\n}\n";
  }

  // S-STUCK (Semantics::stuck): each transition of an existing context that
  // has not fired, and each Exit that has not delivered, at its frame
  // instance's last iteration; by context (canonically), then topologically.
  [[nodiscard]] std::vector<std::string> stuck() const {
    struct Item {
      int context;
      NodeId node;
      std::string condition;
    };
    std::vector<Item> items;
    for (std::size_t c = 0; c < u_.size(); ++c)
      for (auto n : p_.topological_order())
        if (node(n).frame == ctx(static_cast<int>(c)).frame && node(n).op.kind != OpKind::exit)
          items.push_back({static_cast<int>(c), n, all_of({pres(static_cast<int>(c)), negation(fired(n, static_cast<int>(c)))})});
    for (std::size_t i = 0; i < u_.instances_count(); ++i) {
      const auto& inst = u_.instance(static_cast<int>(i));
      for (auto x : p_.frame(inst.frame).exits)
        for (auto j : inst.iterations)
          items.push_back({j, x, all_of({pres(inst.iterations[0]), negation(fired(x, inst.parent)), last(j)})});
    }
    std::vector<std::size_t> position(p_.nodes().size());
    for (std::size_t k = 0; k < p_.topological_order().size(); ++k) position[p_.topological_order()[k].index()] = k;
    std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
      if (a.context != b.context) return u_.stack(a.context) < u_.stack(b.context);
      return position[a.node.index()] < position[b.node.index()];
    });
    std::vector<std::string> out;
    for (const auto& item : items) out.push_back(print_item(item.condition, transition_text(item.node, item.context), "; stuck="));
    return out;
  }

  // C-VIOLATION (Semantics::violations): a Merge that fired with a live value
  // left on an input (a loop invariant aside); a live value left for an Exit
  // that has delivered; by context (canonically), then node.
  [[nodiscard]] std::vector<std::string> violations() const {
    struct Item {
      int context;
      NodeId node;
      std::string text;
    };
    std::vector<Item> items;
    for (std::size_t i = 0; i < p_.nodes().size(); ++i) {
      const NodeId n(i);
      const auto& nd = node(n);
      if (nd.op.kind == OpKind::merge) {
        for (auto c : record_contexts(n))
          for (auto d : nd.in)
            if (has_slot(d, c) && !edge(d).invariant)
              items.push_back({c, n, print_item(all_of({fired(n, c), status(d, c) + " == LIVE"}),
                                                "merge-two-live:" + transition_text(n, c), "; violation=")});
      } else if (nd.op.kind == OpKind::exit) {
        for (auto p : record_contexts(n))
          for (auto c : u_.of_frame(nd.frame))
            if (ctx(c).parent == p && has_slot(nd.in[0], c))
              items.push_back({c, n, print_item(all_of({fired(n, p), status(nd.in[0], c) + " == LIVE"}),
                                                "exit-twice:" + transition_text(n, c), "; violation=")});
      }
    }
    std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
      if (a.context != b.context) return u_.stack(a.context) < u_.stack(b.context);
      return a.node < b.node;
    });
    std::vector<std::string> out;
    for (const auto& item : items) out.push_back(item.text);
    return out;
  }
};

}  // namespace

std::string to_promela(const Program& p, const PromelaOptions& options) {
  for (const auto& f : p.frames())
    if (f.kind == Frame::Kind::function)
      throw InputError("X-PROMELA", "", "function '" + f.name + "'",
                       "recursion (Call and Return) is not exported to Promela; check the graph with tfsem itself");
  if (p.has_control_flow()) return ControlFlowExporter(p, options.max_iterations).run();
  return CoreExporter(p).run();
}

}  // namespace tfsem::promela
