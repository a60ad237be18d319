import Foundation
import Testing
import GeoTestSupport
#if canImport(Glibc)
import Glibc
#endif

private struct BodyFailed: Error {}

@Test func withTemporaryDirectory_isRemovedWhenTheBodyReturnsOrThrows() async throws {
    let kept = try withTemporaryDirectory { dir in
        try Data("x".utf8).write(to: dir.appendingPathComponent("file"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["file", "sub"], "a fresh, empty directory")
        return dir
    }
    #expect(!FileManager.default.fileExists(atPath: kept.path))
    #expect(kept.path.hasPrefix(FileManager.default.temporaryDirectory.path), "under $TMPDIR")
    #expect(kept.lastPathComponent.hasPrefix("locationkit-tests-withTemporaryDirectoryisRemovedWhenTheBodyReturnsOrThrows-"),
            "named after the test: \(kept.lastPathComponent)")

    var thrown: URL?
    await #expect(throws: BodyFailed.self) {
        try await withTemporaryDirectory { dir in
            thrown = dir
            await Task.yield() // the async form
            try Data("x".utf8).write(to: dir.appendingPathComponent("file"))
            throw BodyFailed()
        }
    }
    let dir = try #require(thrown)
    #expect(!FileManager.default.fileExists(atPath: dir.path))
    #expect(dir != kept)
}

/// gpsd under gpsfake leaves a System V shared-memory segment keyed by its port
/// (0x4770_0000 + port) behind, even when it ends normally; GPSFake removes it. (Its control
/// socket goes to a private TMPDIR; scripts/test.sh checks that nothing is left in `$TMPDIR`.)
@Test(.onOwnThread) func gpsFake_removesGPSDsSharedMemory() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return }
    guard let port = try await GPSFake.withReplay(log: log, { gpsd in gpsd.port }) else { return }
    #expect(shmget(key_t(0x4770_0000 + port), 0, 0) == -1 && errno == ENOENT,
            "gpsd's shared-memory segment for port \(port) is removed (ipcs -m)")
    guard let piped = try await GPSFake.pipe(log: log) else { return }
    #expect(piped.stdout.contains("\"class\":\"TPV\""), "gpsd reported fixes: \(piped.stdout.prefix(300)) \(piped.stderr.prefix(300))")
}
