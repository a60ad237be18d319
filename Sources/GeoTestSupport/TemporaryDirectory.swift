public import Foundation
import SystemIO
import Platform

/// A fresh, empty directory under the system temporary directory that lives as long as one
/// body: it is removed, with everything in it, when the body returns or throws, so a test run
/// leaves nothing behind in `/tmp`.
///
/// - Parameters:
///   - label: part of the directory's name (letters and digits of it), to tell whose it was
///     when a killed run leaves one behind; the calling function's name by default.
///   - body: gets the directory's URL.
public func withTemporaryDirectory<Result>(_ label: String = #function,
                                           _ body: (URL) async throws -> Result) async throws -> Result {
    let url = try makeTemporaryDirectory(label)
    defer { removeTemporaryDirectory(url) }
    return try await body(url)
}

/// The synchronous form of ``withTemporaryDirectory(_:_:)-(_,(URL)async_throws->Result)``.
public func withTemporaryDirectory<Result>(_ label: String = #function,
                                           _ body: (URL) throws -> Result) throws -> Result {
    let url = try makeTemporaryDirectory(label)
    defer { removeTemporaryDirectory(url) }
    return try body(url)
}

/// Creates `$TMPDIR/locationkit-tests-<label>-XXXXXX` with `mkdtemp(3)` (a unique name, mode
/// 0700). The random part is kept to mkdtemp's six characters, not a UUID's 36, so that a
/// socket a tool makes inside (gpsfake's, see ``GPSFake``) stays under the 107 bytes a Unix
/// socket path may have. The caller removes it (``removeTemporaryDirectory(_:)``) where
/// ``withTemporaryDirectory(_:_:)-(_,(URL)async_throws->Result)`` does not fit (a directory made
/// in a set-up function and removed by the test).
public func makeTemporaryDirectory(_ label: String = #function) throws -> URL {
    let name = "locationkit-tests-\(label.filter { $0.isLetter || $0.isNumber })-XXXXXX"
    let template = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
    var path = Array(template.utf8CString)
    guard mkdtemp(&path) != nil else {
        throw SystemIOError(SystemIOError.Code(errno: errno), "cannot create a temporary directory", errno: errno, path: template)
    }
    return URL(fileURLWithPath: String(decoding: path.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self), isDirectory: true)
}

/// Removes a test's directory with everything in it, again while it is still there (up to
/// 5 s, sleeping 100 ms between tries). A file that another thread creates in it during the
/// removal (a database pool reader that a server's ending task opens recreates its `-shm`
/// file) makes the last `rmdir` fail with ENOTEMPTY: a CI run found a tracking test's
/// directory left behind after every test had passed, and scripts/test.sh fails a run that
/// leaves anything in `$TMPDIR`.
public func removeTemporaryDirectory(_ url: URL) {
    for _ in 0..<50 where FileManager.default.fileExists(atPath: url.path) {
        try? FileManager.default.removeItem(at: url)
        if FileManager.default.fileExists(atPath: url.path) { Thread.sleep(forTimeInterval: 0.1) }
    }
}
