//===- Locations.h - short locations for reports ------------------*- C++ -*-===//
//
// "file:line" of a location, as the reports and remarks print where an op
// came from.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_SUPPORT_LOCATIONS_H
#define SPARCAST_SUPPORT_LOCATIONS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Path.h"

#include <string>

namespace mlir::sc {

/// "file:line" of `loc` (the file without its directory), "?" when it has
/// none.
inline std::string fileLineOf(Location loc) {
  if (auto l = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(l.getFilename()) + ":" +
            Twine(l.getLine()))
        .str();
  return "?";
}

} // namespace mlir::sc

#endif // SPARCAST_SUPPORT_LOCATIONS_H
