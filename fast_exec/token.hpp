// What an edge or a variable holds in the executor: an edge's contents on the
// host (EMPTY, GO, DEAD, a variable, a tensor; semantics/content.hpp), a
// dense scalar unboxed (semantics/scalar.hpp: no allocation, no reference
// count; a tensor on the host when taken as contents), or a tensor resident on
// the accelerator. A tag beside one pointer-sized payload,
// 24 bytes, so that the tokens the executor moves at every firing are cheap to
// move and to destroy; moving one out leaves EMPTY behind.
#pragma once

#include "fast_exec/device.hpp"
#include "semantics/content.hpp"
#include "semantics/scalar.hpp"

#include <cassert>
#include <memory>
#include <new>
#include <utility>

namespace tfsem::fast_exec {

class Token {
 public:
  using DevicePtr = std::shared_ptr<const DeviceTensor>;

  Token() noexcept {}
  Token(Empty) noexcept {}
  Token(Go) noexcept : tag_(Tag::go) {}
  Token(Dead) noexcept : tag_(Tag::dead) {}
  Token(VarId x) noexcept : tag_(Tag::var), var_(x) {}
  // A dense scalar is kept unboxed (see boxed).
  Token(Tensor t) noexcept {
    if (const auto s = Scalar::of_tensor(t)) {
      tag_ = Tag::scalar;
      new (&scalar_) Scalar(*s);
    } else {
      tag_ = Tag::tensor;
      new (&tensor_) Tensor(std::move(t));
    }
  }
  Token(Scalar s) noexcept : tag_(Tag::scalar) { new (&scalar_) Scalar(s); }
  // t as a tensor even when it is a scalar: a constant that leaves the graph,
  // which would be boxed again, a new Tensor, at every fetch.
  static Token boxed(Tensor t) noexcept {
    Token s;
    s.tag_ = Tag::tensor;
    new (&s.tensor_) Tensor(std::move(t));
    return s;
  }
  explicit Token(DevicePtr d) noexcept : tag_(Tag::device) { new (&device_) DevicePtr(std::move(d)); }
  // Host contents.
  explicit Token(const Content& c) {
    if (const auto* t = std::get_if<Tensor>(&c)) {
      *this = Token(*t);
    } else if (const auto* x = std::get_if<VarId>(&c)) {
      tag_ = Tag::var;
      var_ = *x;
    } else if (is_dead(c)) {
      tag_ = Tag::dead;
    } else if (std::holds_alternative<Go>(c)) {
      tag_ = Tag::go;
    }
  }
  Token(const Token& o) : tag_(o.tag_), var_(o.var_) {
    if (tag_ == Tag::tensor) new (&tensor_) Tensor(o.tensor_);
    else if (tag_ == Tag::scalar) new (&scalar_) Scalar(o.scalar_);
    else if (tag_ == Tag::device) new (&device_) DevicePtr(o.device_);
  }
  Token(Token&& o) noexcept : tag_(o.tag_), var_(o.var_) { steal(o); }
  Token& operator=(const Token& o) {
    if (this != &o) *this = Token(o);
    return *this;
  }
  [[gnu::always_inline]] Token& operator=(Token&& o) noexcept {
    if (this != &o) {
      destroy();
      tag_ = o.tag_;
      var_ = o.var_;
      steal(o);
    }
    return *this;
  }
  ~Token() { destroy(); }
  // Takes o into this token, which is EMPTY (an input slot is filled
  // once in an iteration): nothing to destroy first.
  void fill(Token&& o) noexcept {
    assert(empty());
    tag_ = o.tag_;
    var_ = o.var_;
    steal(o);
  }

  [[nodiscard]] bool empty() const { return tag_ == Tag::empty; }
  // Whether it holds a payload of its own (a tensor, on the host or the device).
  [[nodiscard]] bool owns() const { return tag_ >= Tag::tensor; }
  [[nodiscard]] bool dead() const { return tag_ == Tag::dead; }
  // A tensor on the accelerator; else host contents.
  [[nodiscard]] const DevicePtr* device() const { return tag_ == Tag::device ? &device_ : nullptr; }
  [[nodiscard]] const Tensor* tensor() const { return tag_ == Tag::tensor ? &tensor_ : nullptr; }
  [[nodiscard]] const Scalar* scalar() const { return tag_ == Tag::scalar ? &scalar_ : nullptr; }
  // The host tensor, moved out (requires tensor()).
  Tensor take_tensor() {
    Tensor t = std::move(tensor_);
    tensor_.~Tensor();
    tag_ = Tag::empty;
    return t;
  }
  // The host contents, moved out (requires !device()); a scalar made a tensor.
  Content take_content() {
    Content c = Empty{};
    switch (tag_) {
      case Tag::go: c = Go{}; break;
      case Tag::dead: c = Dead{}; break;
      case Tag::var: c = var_; break;
      case Tag::tensor: c = std::move(tensor_); break;
      case Tag::scalar: c = scalar_.tensor(); break;
      default: break;
    }
    destroy();
    tag_ = Tag::empty;
    return c;
  }

 private:
  // The tags from tensor on own their payload (a Tensor, a shared pointer):
  // destroying any other token (GO, DEAD, a scalar: most of them) is one test.
  enum class Tag : std::uint8_t { empty, go, dead, var, scalar, tensor, device };
  void destroy() noexcept {
    if (owns()) release();
  }
  void release() noexcept {
    if (tag_ == Tag::tensor) tensor_.~Tensor();
    else device_.~DevicePtr();
  }
  // This token's tag is o's: takes o's payload, leaving o EMPTY.
  [[gnu::always_inline]] void steal(Token& o) noexcept {
    if (tag_ == Tag::scalar) {
      new (&scalar_) Scalar(o.scalar_);
    } else if (tag_ == Tag::tensor) {
      new (&tensor_) Tensor(std::move(o.tensor_));
      o.tensor_.~Tensor();
    } else if (tag_ == Tag::device) {
      new (&device_) DevicePtr(std::move(o.device_));
      o.device_.~DevicePtr();
    }
    o.tag_ = Tag::empty;
  }

  Tag tag_ = Tag::empty;
  VarId var_{};
  union {
    Tensor tensor_;
    Scalar scalar_;
    DevicePtr device_;
  };
};

}  // namespace tfsem::fast_exec
