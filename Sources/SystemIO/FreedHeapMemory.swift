import Platform
#if canImport(Glibc)
import CMalloc
#endif

/// The heap memory the C library holds free, given back to the system.
///
/// glibc's malloc returns a freed page to the kernel only from the top of an arena
/// (`M_TRIM_THRESHOLD`); pages freed below a block still in use stay in the process's RSS until
/// `malloc_trim(3)` releases them (`madvise(MADV_DONTNEED)` on every whole free page of every
/// arena, glibc ≥ 2.8). A server whose requests pile up for a second (a slow disk, a stalled
/// core) keeps the peak of that pile for good: `geo serve-tracking` under tracking.sh 19,900
/// devices stepped from 492 to 532 MB in one latency spike, one arena grown by 41 MB, and a
/// `malloc_trim(0)` at 200 s brought it back to 493 MB (2026-12-04). Elsewhere (musl, Darwin,
/// whose allocators release free pages of their own) it does nothing.
public enum FreedHeapMemory {
    /// Releases the free pages of every malloc arena; returns the bytes the resident set fell
    /// by meanwhile (0 when it did not fall, or where the resident set cannot be read).
    /// Holds each arena's lock while it walks it: 1–50 ms for the tracking server's ~500 MB,
    /// up to 250 ms on a machine too loaded to give it a core (tracking.sh, 2026-12-04).
    @discardableResult
    public static func release() -> Int {
        #if canImport(Glibc)
        let before = residentBytes()
        _ = malloc_trim(0)
        guard let before, let after = residentBytes() else { return 0 }
        return max(0, before - after)
        #else
        return 0
        #endif
    }

    /// The process's resident set, bytes (`/proc/self/statm`'s second field, pages); nil where
    /// `/proc` is absent.
    public static func residentBytes() -> Int? {
        guard let bytes = try? FileDescriptor.readContents(of: "/proc/self/statm", limit: 256),
              let pages = String(decoding: bytes, as: UTF8.self).split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }
}
