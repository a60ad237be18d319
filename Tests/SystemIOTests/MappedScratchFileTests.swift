import Foundation
import GeoTestSupport
import SystemIO
import Testing

/// `MappedScratchFile`: unlinked at once, contents kept across growth, a full disk a typed
/// error that leaves the mapping as it was.
struct MappedScratchFileTests {
    @Test func grows_keepingItsBytes_andLeavesNoName() throws {
        try withTemporaryDirectory { dir in
            let file = try MappedScratchFile(directory: dir.path)
            #expect(file.bytes.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "unlinked at once")
            try file.resize(to: 10_000)
            for i in 0..<10_000 { file.bytes[i] = UInt8(truncatingIfNeeded: i &* 7) }
            try file.resize(to: 3 << 20)
            #expect(file.bytes.count == 3 << 20)
            #expect((0..<10_000).allSatisfy { file.bytes[$0] == UInt8(truncatingIfNeeded: $0 &* 7) })
            #expect(file.bytes[(3 << 20) - 1] == 0, "new bytes are zero")
            try file.resize(to: 100)
            #expect(file.bytes.count == 100 && file.bytes[99] == UInt8(truncatingIfNeeded: 99 &* 7))
            file.close()
            #expect(file.bytes.isEmpty)
            #expect(throws: SystemIOError.self) { try file.resize(to: 10) }
        }
    }

    /// Growing past what the file system holds (an exabyte) is `.noSpace` (`ENOSPC` or
    /// `EFBIG`), thrown before the mapping changes: its bytes are still readable.
    @Test func growingPastTheDisk_isNoSpace_andKeepsTheMapping() throws {
        try withTemporaryDirectory { dir in
            let file = try MappedScratchFile(directory: dir.path)
            try file.resize(to: 4096)
            file.bytes[4095] = 42
            #expect {
                try file.resize(to: 1 << 60)
            } throws: { error in
                guard let error = error as? SystemIOError else { return false }
                return error.code == .noSpace && error.path == dir.path
            }
            #expect(file.bytes.count == 4096 && file.bytes[4095] == 42)
        }
    }

    @Test func missingDirectory_isNotFound_namingIt() {
        #expect {
            _ = try MappedScratchFile(directory: "/nonexistent-geo-dir")
        } throws: { error in
            (error as? SystemIOError)?.code == .notFound && (error as? SystemIOError)?.path == "/nonexistent-geo-dir"
        }
    }
}
