#include "report/page.hpp"

#include "report/page_template.hpp"

#include <utility>

namespace tfsem::report {

namespace {

const char* frame_kind(Frame::Kind k) {
  switch (k) {
    case Frame::Kind::root: return "root";
    case Frame::Kind::loop: return "loop";
    case Frame::Kind::function: return "function";
  }
  return "root";
}

int index_or_none(NodeId n) { return n.valid() ? static_cast<int>(n.value) : -1; }

// A text safe inside a <script> element: no "</" can end it.
std::string in_script(std::string s) {
  for (std::size_t at = 0; (at = s.find("</", at)) != std::string::npos; at += 3) s.replace(at, 2, "<\\/");
  return s;
}

}  // namespace

nlohmann::json PageWitnesses::slot(Slot s) {
  return {s.edge.value, s.context.value, s.context == kRootContext ? std::string() : names_(s.context)};
}

void PageWitnesses::begin(std::string title, const State& s) {
  const auto& p = sem_.program();
  nlohmann::json slots = nlohmann::json::array(), vars = nlohmann::json::array();
  for (const auto& [at, c] : s.in_transit) {
    auto entry = slot(at);
    entry.push_back(content_to_string(p, c));
    slots.push_back(std::move(entry));
  }
  for (const auto& v : s.var_value) vars.push_back(v.to_string());
  witnesses_.push_back({{"title", std::move(title)}, {"slots", slots}, {"vars", vars}, {"steps", nlohmann::json::array()}});
  last_ = s;
}

void PageWitnesses::step(const Step& step, const State& s) {
  auto& w = witnesses_.back();
  if (w.contains("omitted")) return;
  if (++steps_ > kMaxSteps) {
    w["steps"] = nlohmann::json::array();
    w["omitted"] = true;
    return;
  }
  const auto& p = sem_.program();
  // The slots whose contents changed, in InTransit's order (by edge, then context), before and after.
  nlohmann::json slots = nlohmann::json::array(), vars = nlohmann::json::array();
  auto change = [&](Slot at, const Content* before, const Content* after) {
    auto entry = slot(at);
    entry.push_back(before ? nlohmann::json(content_to_string(p, *before)) : nlohmann::json());
    entry.push_back(after ? nlohmann::json(content_to_string(p, *after)) : nlohmann::json());
    slots.push_back(std::move(entry));
  };
  auto a = last_.in_transit.cbegin(), b = s.in_transit.cbegin();
  while (a != last_.in_transit.cend() || b != s.in_transit.cend()) {
    if (b == s.in_transit.cend() || (a != last_.in_transit.cend() && a->first < b->first)) {
      change(a->first, &a->second, nullptr);
      ++a;
    } else if (a == last_.in_transit.cend() || b->first < a->first) {
      change(b->first, nullptr, &b->second);
      ++b;
    } else {
      if (!(a->second == b->second)) change(a->first, &a->second, &b->second);
      ++a, ++b;
    }
  }
  for (std::size_t x = 0; x < s.var_value.size(); ++x)
    if (!(last_.var_value[x] == s.var_value[x])) vars.push_back({x, last_.var_value[x].to_string(), s.var_value[x].to_string()});
  w["steps"].push_back({{"fire", names_.transition(step.transition()) + (step.choice ? "/" + std::to_string(step.choice) : "")},
                        {"node", step.node.value},
                        {"label", p.label(step.node)},
                        {"slots", slots},
                        {"vars", vars}});
  last_ = s;
}

std::size_t PageWitnesses::replay(std::string title, const Schedule& schedule) {
  State s = sem_.initial();
  begin(std::move(title), s);
  for (const auto& st : schedule) {
    s = std::move(sem_.fire(s, st.transition())[st.choice]);
    step(st, s);
  }
  return witnesses_.size() - 1;
}

nlohmann::json page_graph(const Program& p) {
  nlohmann::json nodes = nlohmann::json::array(), edges = nlohmann::json::array(), frames = nlohmann::json::array(),
                 vars = nlohmann::json::array();
  for (std::size_t n = 0; n < p.nodes().size(); ++n) {
    const auto& node = p.node(NodeId(n));
    nodes.push_back({{"name", std::string(node.name())}, {"label", p.label(NodeId(n))}, {"frame", node.frame.value}});
  }
  for (std::size_t e = 0; e < p.edges().size(); ++e) {
    const auto& edge = p.edge(EdgeId(e));
    edges.push_back({{"name", std::string(edge.name())},
                     {"kind", edge_kind_name(edge.kind)},
                     {"src", index_or_none(edge.src)},
                     {"dst", index_or_none(edge.dst)},
                     {"fetch", p.fetch(edge)},
                     {"back", edge.back}});
  }
  for (const auto& f : p.frames())
    frames.push_back({{"name", f.name},
                      {"kind", frame_kind(f.kind)},
                      {"parent", f.parent.valid() ? static_cast<int>(f.parent.value) : -1},
                      {"parallel_iterations", f.parallel_iterations}});
  for (const auto& v : p.variables()) vars.push_back(v.name);
  return {{"name", p.name()}, {"nodes", nodes}, {"edges", edges}, {"frames", frames}, {"variables", vars}};
}

std::string page_html(const std::string& title, const Program& p, const nlohmann::json& report,
                      const PageWitnesses& witnesses) {
  const nlohmann::json data = {{"title", title}, {"graph", page_graph(p)}, {"report", report}, {"witnesses", witnesses.json()}};
  std::string page(kPageTemplate);
  const std::string marker = "/*TFSEM_DATA*/null";
  page.replace(page.find(marker), marker.size(), in_script(data.dump()));
  return page;
}

}  // namespace tfsem::report
