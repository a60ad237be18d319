import Foundation
import Platform

/// Runs `body` while no other test that measures a heap release runs: `malloc_trim`
/// (`FreedHeapMemory.release`) gives back the free pages of every arena of the process, so a
/// release in one test would take the pages another test freed.
public func withHeapReleaseMeasured<T>(_ body: () throws -> T) rethrows -> T {
    heapReleaseLock.lock()
    defer { heapReleaseLock.unlock() }
    return try body()
}

private let heapReleaseLock = NSLock()

/// Allocates `mebibytes` MiB in 1 KiB blocks, writes to every one, then frees them all but a
/// block allocated after them (returned; the caller frees it), so that the freed pages lie below
/// a block in use, not at the arena's top, where glibc gives pages back of its own.
public func freeHeapBelowAKeptBlock(mebibytes: Int) -> UnsafeMutableRawPointer {
    let blocks = (0..<mebibytes * 1024).map { _ in
        let block = malloc(1024)!
        memset(block, 0x5A, 1024)
        return block
    }
    let kept = malloc(1024)!
    blocks.forEach { free($0) }
    return kept
}
