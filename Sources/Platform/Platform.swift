// The platform under every module, chosen in one place: swift-foundation's FoundationEssentials
// where the toolchain has it (no ICU), else Foundation; and the C library (Glibc, Musl or
// Darwin). Modules import `Platform` instead of repeating these conditions in each file.
#if canImport(FoundationEssentials)
@_exported public import FoundationEssentials
#else
@_exported public import Foundation
#endif
#if canImport(Glibc)
@_exported public import Glibc
#elseif canImport(Musl)
@_exported public import Musl
#elseif canImport(Darwin)
@_exported public import Darwin
#endif
