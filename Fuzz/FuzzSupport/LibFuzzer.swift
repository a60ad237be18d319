#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import CLibFuzzer

/// Runs libFuzzer's driver with this process's arguments and `harness` as the fuzz target
/// (`LLVMFuzzerTestOneInput`), then exits with libFuzzer's status. The harness gets each input's
/// bytes and must not crash, hang or grow memory without bound.
public func runLibFuzzer(_ harness: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, harness))
}
