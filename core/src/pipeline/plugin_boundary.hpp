#pragma once
// The edge between the host and the plugin libraries it loaded. What the host receives from a
// plugin is wrapped here, so that:
// - every plugin object keeps the library that made it loaded for as long as it lives, whoever
//   holds it and whenever the registry goes away;
// - no exception a plugin throws leaves a call into it: it is replaced by a rag::Error made in
//   core, with the same message. An exception made in a plugin may carry its destructor and type
//   information in that library (inline functions are hidden there), and unwinding can unload
//   the library before a handler is done with the exception: a crash after the error was shown.
// - an exception the host throws into a plugin (from a streaming callback) is carried around the
//   plugin's frames and rethrown as it was, whatever the plugin does with it.
#include <boost/dll/shared_library.hpp>

#include <memory>
#include <string>

#include "rag/chunker.hpp"
#include "rag/error.hpp"
#include "rag/generator.hpp"
#include "rag/retriever.hpp"

namespace rag::plugin_boundary {

/// A loaded plugin library, shared by the registry and every object made by the plugin.
using Library = std::shared_ptr<const boost::dll::shared_library>;

/// Runs `call`, a call into a plugin, and returns what it returns; an exception it lets out
/// becomes a rag::Error made here: the same message for a rag::Error, "<context()>: <what>" for
/// any other (`context` is only called then: calls into plugins are on the search path).
/// std::bad_alloc stays what it is.
template <class Context, class Call>
auto guarded(Context context, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const Error& e) {
    throw Error(std::string(e.what()));
  } catch (const std::bad_alloc&) {
    throw std::bad_alloc();
  } catch (const std::exception& e) {
    throw Error(context() + ": " + e.what());
  } catch (...) {
    throw Error(context() + " (with an exception that is not a std::exception)");
  }
}

/// `object`, made by `plugin` in `library`, as the host holds it.
std::unique_ptr<Chunker> hold(std::unique_ptr<Chunker> object, Library library, std::string plugin);
std::unique_ptr<Retriever> hold(std::unique_ptr<Retriever> object, Library library, std::string plugin);
std::unique_ptr<Generator> hold(std::unique_ptr<Generator> object, Library library, std::string plugin);

}  // namespace rag::plugin_boundary
