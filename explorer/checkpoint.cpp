#include "explorer/checkpoint.hpp"

#include <filesystem>

namespace tfsem::explorer {

std::string search_options_text(const ExploreOptions& o) {
  return "--por " + std::string(por_name(o.por)) + " --max-iterations " + std::to_string(o.limits.bounds.max_iterations) +
         " --max-depth " + std::to_string(o.limits.bounds.max_depth);
}

CheckpointHeader header_for(const Semantics& sem, const ExploreOptions& o, const Checkpoints& c, unsigned shards) {
  return {c.version, sem.program().hash_hex(), search_options_text(o), shards};
}

std::string checkpoint_path(const Checkpoints& c, Por por) {
  return (std::filesystem::path(c.dir) / (std::string(por_name(por)) + ".checkpoint")).string();
}

std::string manifest_path(const Checkpoints& c, Por por) {
  return (std::filesystem::path(c.dir) / (std::string(por_name(por)) + ".ranks")).string();
}

std::string part_path(const Checkpoints& c, Por por, std::uint64_t generation, std::uint32_t rank) {
  return (std::filesystem::path(c.dir) /
          (std::string(por_name(por)) + "." + std::to_string(generation) + ".rank-" + std::to_string(rank)))
      .string();
}

void remove_parts_but(const Checkpoints& c, Por por, std::uint64_t generation) {
  const auto prefix = std::string(por_name(por)) + ".", kept = prefix + std::to_string(generation) + ".rank-";
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(c.dir, ignored)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.find(".rank-") != std::string::npos && !name.starts_with(kept))
      std::filesystem::remove(entry.path(), ignored);
  }
}

void write_header(CheckpointOut& out, const CheckpointHeader& h) {
  out.text(h.version);
  out.text(h.graph_hash);
  out.text(h.options);
  out.pod(h.shards);
}

CheckpointHeader read_header(CheckpointIn& in, const CheckpointHeader& expected) {
  CheckpointHeader h;
  h.version = in.text();
  h.graph_hash = in.text();
  h.options = in.text();
  h.shards = in.pod<std::uint32_t>();
  const auto refuse = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    return CheckpointError(in.path() + ": a checkpoint of " + what + " (" + theirs + "), not of " + ours);
  };
  if (h.version != expected.version) throw refuse("another tfsem", h.version, expected.version);
  if (h.graph_hash != expected.graph_hash) throw refuse("another graph", "hash " + h.graph_hash, "hash " + expected.graph_hash);
  if (h.options != expected.options) throw refuse("other search options", h.options, expected.options);
  if (h.shards == 0 || h.shards > 64 || (h.shards & (h.shards - 1)) != 0)
    throw CheckpointError(in.path() + ": corrupted: " + std::to_string(h.shards) + " shards");
  return h;
}

namespace {

struct SavedContext {
  std::uint32_t parent, frame, iteration;
  std::uint8_t call;
};

SavedContext saved(const Contexts& contexts, ContextId c) {
  const auto& e = contexts[c];
  return {e.parent.value, e.frame.value, e.iteration, static_cast<std::uint8_t>(contexts.is_call(c))};
}

}  // namespace

void save_contexts(CheckpointOut& out, const Contexts& contexts) {
  out.pod<std::uint64_t>(contexts.size());
  for (std::uint32_t id = 1; id < contexts.size(); ++id) {
    const auto s = saved(contexts, ContextId(id));
    out.pod(s.parent), out.pod(s.frame), out.pod(s.iteration), out.pod(s.call);
  }
}

void restore_contexts(CheckpointIn& in, const Contexts& contexts) {
  const auto n = in.size(UINT32_MAX, 13);
  for (std::uint32_t id = 1; id < n; ++id) {
    SavedContext s{in.pod<std::uint32_t>(), in.pod<std::uint32_t>(), in.pod<std::uint32_t>(), in.pod<std::uint8_t>()};
    if (s.parent >= id) throw CheckpointError(in.path() + ": corrupted: a context");
    if (id < contexts.size()) {
      const auto have = saved(contexts, ContextId(id));
      if (have.parent == s.parent && have.frame == s.frame && have.iteration == s.iteration && have.call == s.call) continue;
      throw CheckpointError(in.path() + ": corrupted: the contexts differ");
    }
    const ContextId parent(s.parent);
    const FrameId frame(s.frame);
    const auto got = s.call != 0 ? contexts.call(parent, frame, s.iteration) : contexts.child(parent, frame, s.iteration);
    if (got != ContextId(id)) throw CheckpointError(in.path() + ": corrupted: the contexts differ");
  }
}

}  // namespace tfsem::explorer
