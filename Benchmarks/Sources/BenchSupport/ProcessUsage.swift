#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// User + system CPU seconds of this process (`getrusage(2)`): on a shared machine, unlike the
/// wall clock, it does not count the time other processes held the cores.
public func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

/// The peak resident set size of this process so far, MiB (`getrusage(2)`'s `ru_maxrss`,
/// which Linux gives in KiB).
public func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}
