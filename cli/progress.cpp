#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tfsem::cli {

bool progress_shown() { return isatty(STDERR_FILENO) != 0; }

void draw_progress(const std::string& line) { std::fprintf(stderr, "\r%s\033[K", line.c_str()); }

std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llds", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s / 60 % 60);
  return buf;
}

std::string search_progress_text(const explorer::Progress& p, const explorer::Limits& limits) {
  const double rate = p.seconds > 0 ? static_cast<double>(p.states) / p.seconds : 0;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%llu states, %.0f states/s, %llu MiB, %s elapsed", static_cast<unsigned long long>(p.states),
                rate, static_cast<unsigned long long>(p.memory_bytes >> 20), duration_text(p.seconds).c_str());
  std::string text = buf;
  if (rate <= 0) return text;
  // The bound reached first, at the rate so far.
  const char* bound = "--max-states";
  double left = static_cast<double>(limits.max_states - std::min(limits.max_states, p.states)) / rate;
  if (p.memory_bytes > 0 && p.states > 0) {
    const double fit = static_cast<double>(limits.max_memory_bytes) / static_cast<double>(p.memory_bytes) * static_cast<double>(p.states);
    if (const double m = std::max(0.0, fit - static_cast<double>(p.states)) / rate; m < left) {
      left = m;
      bound = "--max-memory";
    }
  }
  if (const auto timeout = limits.stop ? limits.stop->seconds_left() : std::nullopt; timeout && *timeout < left) {
    left = std::max(0.0, *timeout);
    bound = "--timeout";
  }
  return text + ", at most ~" + duration_text(left) + " left (" + bound + ")";
}

CountProgress::CountProgress(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total), shown_(progress_shown()) {}

void CountProgress::update(std::size_t done, const std::string& extra) {
  const auto now = Clock::now();
  if (!shown_) return;
  if (!first_) first_ = {now, done};
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  drawn_ = true;
  std::string text = what_ + " " + std::to_string(done) + " of " + std::to_string(total_) + (extra.empty() ? "" : ", " + extra) +
                     ", " + duration_text(std::chrono::duration<double>(now - start_).count()) + " elapsed";
  if (done > first_->second) {
    const double each = std::chrono::duration<double>(now - first_->first).count() / static_cast<double>(done - first_->second);
    text += ", ~" + duration_text(each * static_cast<double>(total_ - std::min(total_, done))) + " left";
  }
  draw_progress(text);
}

void CountProgress::end(bool other_drawn) {
  if (shown_ && (drawn_ || other_drawn)) std::fprintf(stderr, "\n");
  drawn_ = false;
}

ElapsedProgress::ElapsedProgress(std::string what, const StopToken* phase_of) {
  if (!progress_shown()) return;
  drawer_ = std::thread([this, what = std::move(what), phase_of] {
    const auto start = std::chrono::steady_clock::now();
    bool drawn = false;
    std::unique_lock lock(mutex_);
    for (auto next = start + std::chrono::seconds(1); !wake_.wait_until(lock, next, [this] { return done_; });
         next += std::chrono::milliseconds(250)) {
      const std::string phase = phase_of ? phase_of->phase() : "";
      draw_progress(what + (phase.empty() ? "" : " (" + phase + ")") + ", " +
                    duration_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) + " elapsed");
      drawn = true;
    }
    if (drawn) draw_progress("");  // erased: what follows starts the line
  });
}

ElapsedProgress::~ElapsedProgress() {
  if (!drawer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  drawer_.join();
}

}  // namespace tfsem::cli
