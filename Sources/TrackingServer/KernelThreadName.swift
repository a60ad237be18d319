import Platform

/// Gives the calling thread its name in the kernel (Foundation's `Thread.name` stays
/// Foundation's on Linux), so that `/proc/PID/task/*/comm` and `perf` tell its CPU time apart
/// (Benchmarks/tracking.sh): proc(5), a thread may write its own `comm`, of which Linux keeps 15
/// bytes. Elsewhere it does nothing.
func nameKernelThread(_ name: String) {
    #if os(Linux)
    let comm = open("/proc/thread-self/comm", O_WRONLY)
    guard comm >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
    close(comm)
    #endif
}
