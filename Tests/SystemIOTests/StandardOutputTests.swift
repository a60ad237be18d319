import Foundation
import GeoBase
import GeoTestSupport
import Testing
import SystemIO

// StandardOutput's buffer: writes stay in it until it is flushed (or fills), then reach the
// descriptor in the order they were made, whichever way they were written; copies share it.

@Test func standardOutput_holdsWritesUntilFlushed_thenWritesThemInOrder() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("out.txt").path
        let fd = try FileDescriptor.create(path)
        defer { try? fd.close() }
        let out = StandardOutput(program: "test", descriptor: fd)
        out.write("a")
        Array("bc".utf8).withUnsafeBytes { out.write($0) }
        var copy = out // a copy writes into the same buffer, as `var sink: any ByteSink = standardOutput` does
        try copy.write(text: "d")
        out.withBuffer { $0.append(byte: UInt8(ascii: "e")) }
        out.write("f\n")
        var printed = out
        print(1.5, terminator: "", to: &printed)
        #expect(try FileDescriptor.readContents(of: path).isEmpty) // 9 bytes: far below the 64 KiB buffer
        out.flush()
        #expect(String(decoding: try FileDescriptor.readContents(of: path), as: UTF8.self) == "abcdef\n1.5")
        #expect(out.program == "test")
    }
}

@Test func standardOutput_writesAFullBufferWithoutAFlush() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("out.txt").path
        let fd = try FileDescriptor.create(path)
        defer { try? fd.close() }
        let out = StandardOutput(program: "test", descriptor: fd)
        let line = String(repeating: "x", count: 1023)
        for _ in 0..<70 { out.write(line + "\n") } // 70 KiB: more than BufferedWriter's 64 KiB
        let before = try FileDescriptor.readContents(of: path).count
        #expect(before >= 64 * 1024 && before < 70 * 1024)
        out.flush()
        #expect(try FileDescriptor.readContents(of: path).count == 70 * 1024)
    }
}

@Test func standardOutput_withOutput_dashOrNil_writesThroughTheBuffer_aPathReplacesTheFileOnlyOnSuccess() throws {
    struct Refused: Error {}
    try withTemporaryDirectory { dir in
        let outPath = dir.appendingPathComponent("stdout.txt").path, file = dir.appendingPathComponent("result.txt").path
        let fd = try FileDescriptor.create(outPath)
        defer { try? fd.close() }
        let out = StandardOutput(program: "test", descriptor: fd)
        try out.withOutput(nil) { try $0.write(text: "a") }
        try out.withOutput("-") { try $0.write(text: "b") }
        out.flush()
        #expect(String(decoding: try FileDescriptor.readContents(of: outPath), as: UTF8.self) == "ab")

        try AtomicFileReplacement.write(Array("old".utf8), to: file)
        #expect(throws: Refused.self) {
            try out.withOutput(file) { sink in
                try sink.write(text: "half")
                throw Refused()
            }
        }
        #expect(try FileDescriptor.readContents(of: file) == Array("old".utf8)) // a failed body leaves the old file
        try out.withOutput(file) { try $0.write(text: "new") }
        #expect(try FileDescriptor.readContents(of: file) == Array("new".utf8))
        out.flush()
        #expect(try FileDescriptor.readContents(of: outPath).count == 2) // nothing of the file went to standard output
    }
}
