#pragma once
// The web page of `rag serve` (host/page/), built into the binary so that the server needs no
// files beside it and the page no network (cmake/embed_page.cmake writes the definitions).
#include <cstddef>
#include <string_view>

namespace rag::cli {

struct PageAsset {
  std::string_view path;          ///< where it is served: "/", "/app.js", "/style.css"
  std::string_view content_type;
  std::string_view body;
};

extern const PageAsset kPageAssets[];
extern const std::size_t kPageAssetCount;

}  // namespace rag::cli
