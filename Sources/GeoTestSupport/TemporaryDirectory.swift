public import Foundation

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
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// The synchronous form of ``withTemporaryDirectory(_:_:)-(_,(URL)async_throws->Result)``.
public func withTemporaryDirectory<Result>(_ label: String = #function,
                                           _ body: (URL) throws -> Result) throws -> Result {
    let url = try makeTemporaryDirectory(label)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

private func makeTemporaryDirectory(_ label: String) throws -> URL {
    let name = "locationkit-tests-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    return url
}
