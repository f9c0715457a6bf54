#include "report/race_groups.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace tfsem::report {

namespace {

// Each side's contexts named in a summary: the first few, then "...".
constexpr std::size_t kNamedContexts = 3;

// "0-2,5": sorted iterations, runs of consecutive ones as ranges.
std::string ranges(const std::set<std::uint32_t>& its) {
  std::string out;
  for (auto it = its.begin(); it != its.end();) {
    auto end = it;
    while (std::next(end) != its.end() && *std::next(end) == *end + 1) ++end;
    out += (out.empty() ? "" : ",") + std::to_string(*it) + (end == it ? "" : "-" + std::to_string(*end));
    it = std::next(end);
  }
  return out;
}

// The contexts in the canonical order (Contexts::before), whatever order they were interned in.
using ContextSet = std::set<ContextId, std::function<bool(ContextId, ContextId)>>;

std::string named(ContextNames& names, const ContextSet& cs) {
  std::string out;
  std::size_t k = 0;
  for (auto c : cs) {
    if (k++ == kNamedContexts) return out + "; ...";
    out += (out.empty() ? "" : "; ") + (c == kRootContext ? std::string("root") : names(c));
  }
  return out;
}

}  // namespace

std::vector<RaceGroup> race_groups(const std::vector<explorer::Race>& races) {
  std::vector<RaceGroup> groups;
  std::map<std::tuple<NodeId, NodeId, VarId>, std::size_t> index;
  for (std::size_t k = 0; k < races.size(); ++k) {
    const auto& r = races[k];
    const auto [it, fresh] = index.try_emplace({r.first.node, r.second.node, r.var}, groups.size());
    if (fresh) groups.push_back({r.first.node, r.second.node, r.var, {}, 0});
    auto& g = groups[it->second];
    g.races.push_back(k);
    g.harmful += r.harmful ? 1 : 0;
  }
  return groups;
}

std::string contexts_summary(const Semantics& sem, const std::vector<explorer::Race>& races, const RaceGroup& g) {
  const auto& contexts = sem.contexts();
  const auto before = [&contexts](ContextId a, ContextId b) { return contexts.before(a, b); };
  ContextSet firsts(before), seconds(before);
  for (auto k : g.races) {
    firsts.insert(races[k].first.context);
    seconds.insert(races[k].second.context);
  }
  ContextSet all(firsts);
  all.insert(seconds.begin(), seconds.end());
  if (all.size() == 1 && *all.begin() == kRootContext) return "";
  ContextNames names(sem.program(), contexts);
  const auto one = *all.begin();
  const bool one_loop = std::all_of(all.begin(), all.end(), [&](ContextId c) {
    return c != kRootContext && !contexts.is_call(c) && contexts[c].first == contexts[one].first;
  });
  if (!one_loop) return "contexts " + named(names, firsts) + " against " + named(names, seconds);
  auto iterations = [&](const ContextSet& cs) {
    std::set<std::uint32_t> its;
    for (auto c : cs) its.insert(contexts[c].iteration);
    return ranges(its);
  };
  const auto parent = contexts[one].parent;
  return "loop '" + std::string(sem.program().frame(contexts[one].frame).name) + "'" +
         (parent == kRootContext ? "" : " in " + names(parent)) + ": iterations " + iterations(firsts) + " against " +
         iterations(seconds);
}

std::string harm_summary(const RaceGroup& g) {
  if (g.harmful == g.races.size()) return "harmful";
  if (g.harmful == 0) return "benign";
  return "harmful in " + std::to_string(g.harmful) + " of " + std::to_string(g.races.size());
}

std::string path_summary(const std::vector<explorer::Race>& races, const RaceGroup& g) {
  const auto& first = races[g.races.front()].path;
  const bool same = std::all_of(g.races.begin(), g.races.end(), [&](std::size_t k) { return races[k].path == first; });
  if (!same) return "under several path conditions";
  return first.empty() ? "" : "when " + first.to_string();
}

}  // namespace tfsem::report
