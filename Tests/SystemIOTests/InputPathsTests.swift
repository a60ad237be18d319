import Foundation
import GeoTestSupport
import Testing
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

// A program's input path (`FileSource.inputProblem(at:)`, `init(input:)`): `-` is standard
// input; a missing path or a directory is told before any reader opens it.

@Test func inputProblem_missingUnderAFileOrADirectory_named_nilForAFileAndDash() throws {
    try withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("track.gpx").path
        try Data("<gpx/>".utf8).write(to: URL(fileURLWithPath: file))
        #expect(FileSource.inputProblem(at: file) == nil)
        #expect(FileSource.inputProblem(at: "-") == nil)
        #expect(FileSource.inputProblem(at: dir.appendingPathComponent("missing.gpx").path) == "no such file")
        #expect(FileSource.inputProblem(at: file + "/under") == "no such file") // ENOTDIR
        #expect(FileSource.inputProblem(at: dir.path) == "a directory, not a file")
        #expect(FileSource.inputProblem(at: String(repeating: "x", count: 5000)) == String(cString: strerror(ENAMETOOLONG)))
    }
}

@Test func inputSource_fileRead_dashIsStandardInputLeftOpenByClose() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("bytes").path
        try Data("abc".utf8).write(to: URL(fileURLWithPath: path))
        var source = try FileSource(input: path)
        #expect(source.path == path)
        var bytes = [UInt8](repeating: 0, count: 8)
        let n = try bytes.withUnsafeMutableBytes { try source.read(into: $0) }
        #expect(Array(bytes[..<n]) == Array("abc".utf8))
        source.closeInput()
        let standardInput = try FileSource(input: "-")
        #expect(standardInput.descriptor.rawValue == 0 && standardInput.path == nil)
        standardInput.closeInput()
        #expect(fcntl(0, F_GETFD) != -1)
        let error = #expect(throws: SystemIOError.self) { try FileSource(input: dir.appendingPathComponent("missing").path) }
        #expect(error?.code == .notFound)
    }
}
