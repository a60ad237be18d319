// On Linux the release `geo` links the Swift runtime and Foundation statically (Package.swift,
// target `geo`): this file is compiled against the static modules, and importing Foundation
// here is what names Foundation's own static libraries (CoreFoundation, _FoundationICU, …) to
// the linker. Unused on other platforms and in debug builds.
import Foundation
import GeoCLI

await Geo.runAsMain()
