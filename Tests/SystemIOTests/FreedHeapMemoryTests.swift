import GeoTestSupport
import Platform
import SystemIO
import Testing

/// `FreedHeapMemory`: pages freed below a block still in use leave the resident set only when
/// released (glibc's malloc; elsewhere nothing is held to release).
struct FreedHeapMemoryTests {
    @Test func residentBytes_isThisProcesssResidentSet() throws {
        let bytes = try #require(FreedHeapMemory.residentBytes())
        // A test process holds at least a few MB (its code, the Swift runtime) and under 64 GB.
        #expect(bytes > 1 << 20 && bytes < 64 << 30)
    }

    #if canImport(Glibc)
    /// 64 MiB of 1 KiB blocks, written to, then freed under one block kept after them (so that
    /// the free space is not at the arena's top, where glibc gives it back of its own): a
    /// release lowers the resident set by at least half of it (the rest of the process —
    /// other tests run beside this one — may allocate meanwhile).
    @Test func release_givesFreedPagesBelowABlockInUseBack() {
        withHeapReleaseMeasured {
            let kept = freeHeapBelowAKeptBlock(mebibytes: 64)
            defer { free(kept) }
            let released = FreedHeapMemory.release()
            #expect(released >= 32 << 20, "released \(released) bytes of 64 MiB freed")
        }
    }
    #endif
}
