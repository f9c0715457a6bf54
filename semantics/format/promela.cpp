#include "semantics/format/promela.hpp"

#include "semantics/diagnostic.hpp"

#include <set>
#include <sstream>

namespace tfsem::format {

namespace {

class Exporter {
 public:
  explicit Exporter(const Program& p) : p_(p) {}

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
      if (!e.is_input()) out << "chan e" << i << " = [1] of { " << channel_type(e) << " }; /* " << e.name << " */\n";
    }
    for (std::size_t n = 0; n < p_.nodes().size(); ++n) out << process(NodeId(n));
    out << monitor();
    if (!problems_.empty()) throw InputError(std::move(problems_));
    return out.str();
  }

 private:
  const Program& p_;
  std::vector<Diagnostic> problems_;

  void refuse(const std::string& where, const std::string& subject, const std::string& why) {
    problems_.push_back({"X-PROMELA", where, subject, why + "; the Promela export supports i32 scalars only"});
  }

  std::string scalar(const Tensor& t, const std::string& subject, const std::string& where) {
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

  std::string initial(const Edge& e) {
    if (std::holds_alternative<Go>(e.initial)) return "1";
    if (const auto* v = std::get_if<VarId>(&e.initial)) return std::to_string(v->value);
    return scalar(std::get<Tensor>(e.initial), "edge '" + e.name + "'", e.where);
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
    const auto subject = "node '" + n.name + "'";
    std::ostringstream body, guard, decl;
    decl << "active proctype n" << id.value << "() { /* " << n.name << ": " << p_.label(id) << " */\n";
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
      else if (a != "_") body << " " << a << " = " << initial(e) << ";";
    }
    for (auto d : n.control_in)
      if (!p_.edge(d).is_input()) body << " e" << d.value << "?_;";
    const auto var = [&] { return "x" + std::to_string(p_.variable_of(id)->value); };
    switch (n.op.kind) {
      case Op::Kind::var: body << " e" << n.out[0].value << "!" << n.op.var.value << ";"; break;
      case Op::Kind::read: body << " e" << n.out[0].value << "!" << var() << ";"; break;
      case Op::Kind::assign: {
        const auto f = expression(n.op.fn->name);
        if (f.empty()) refuse(n.where, subject, "Assign-" + std::string(n.op.fn->name) + " is not exported");
        std::string update = f;  // f(w, v) with w the variable's value and v the input
        body << " a1 = a0; a0 = " << var() << "; " << var() << " = " << update << ";";
        break;
      }
      case Op::Kind::function: {
        const auto name = n.op.fn->name;
        if (name == "Copy") {
          body << " e" << n.out[0].value << "!a0; e" << n.out[1].value << "!a0;";
        } else if (name == "Const") {
          body << " e" << n.out[0].value << "!" << scalar(std::get<Tensor>(n.attrs.at("value")), subject, n.where) << ";";
        } else if (name == "Choice") {
          body << " if";
          for (const auto& v : std::get<std::vector<Tensor>>(n.attrs.at("values"))) body << " :: r0 = " << scalar(v, subject, n.where);
          body << " fi; e" << n.out[0].value << "!r0;";
        } else if (const auto f = expression(name); !f.empty() && n.out.size() == 1) {
          body << " r0 = " << f << "; e" << n.out[0].value << "!r0;";
        } else {
          refuse(n.where, subject, "function " + std::string(name) + " is not exported");
        }
        break;
      }
      default: refuse(n.where, subject, p_.label(id) + " (control flow) is not exported"); break;
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
      if (!e.is_output() || e.fetch.empty()) continue;
      if (e.kind != EdgeKind::tensor) refuse(e.where, "edge '" + e.name + "'", "a fetched " + std::string(edge_kind_name(e.kind)) + " edge");
      decl << "  int o" << k << ";\n";
      if (e.is_input()) args << " o" << k << " = " << initial(e) << ";";
      else args << " e" << i << "?<o" << k << ">;";
      format << (format.tellp() > 0 ? "; " : "") << e.fetch << "=i32:%d";
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

}  // namespace

std::string to_promela(const Program& p) { return Exporter(p).run(); }

}  // namespace tfsem::format
