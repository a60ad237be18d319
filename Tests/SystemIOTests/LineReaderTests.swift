import Testing
import SystemIO

/// The lines `text` is read as through a pipe, with the reader's buffer of `capacity` bytes.
private func lines(of text: String, capacity: Int) throws -> (lines: [String], count: Int) {
    let (reader, writer) = try FileDescriptor.pipe()
    defer { try? reader.close() }
    try writer.writeAll(text)
    try writer.close()
    var got: [String] = []
    let count = try LineReader.forEachLine(of: reader, capacity: capacity) { bytes, number in
        #expect(number == got.count + 1)
        got.append(String(decoding: bytes, as: UTF8.self))
        return true
    }
    return (got, count)
}

/// LF and CRLF endings, an empty line, a last line without a newline; lines that straddle the
/// buffer's reads (capacity 8 bytes for lines of up to 7) come out whole.
@Test func lineReader_splitsLines_acrossReads_crlfAndNoFinalNewline() throws {
    let text = "1 2 3\r\n\nabcdefg\nxy\r\nlast"
    for capacity in [8, 9, 13, 64] {
        let (got, count) = try lines(of: text, capacity: capacity)
        #expect(got == ["1 2 3", "", "abcdefg", "xy", "last"], "capacity \(capacity)")
        #expect(count == 5)
    }
    #expect(try lines(of: "", capacity: 8).lines.isEmpty)
    #expect(try lines(of: "a\n", capacity: 8).lines == ["a"])
}

/// A line as long as the buffer is an error naming its number; the lines before it were read.
@Test func lineReader_lineLongerThanTheBuffer_isTypedError_withItsNumber() throws {
    let (reader, writer) = try FileDescriptor.pipe()
    defer { try? reader.close() }
    try writer.writeAll("ok\n" + String(repeating: "x", count: 40) + "\nnever\n")
    try writer.close()
    var got: [String] = []
    let error = #expect(throws: SystemIOError.self) {
        _ = try LineReader.forEachLine(of: reader, capacity: 16) { bytes, _ in
            got.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
    }
    #expect(error?.code == .lineTooLong)
    #expect(error?.message.contains("line 2 ") == true)
    #expect(got == ["ok"])
}

/// `body` returning false stops the reading at once.
@Test func lineReader_stopsWhenTheBodySaysSo() throws {
    let (reader, writer) = try FileDescriptor.pipe()
    defer { try? reader.close() }
    try writer.writeAll("a\nb\nc\n")
    try writer.close()
    var seen = 0
    let count = try LineReader.forEachLine(of: reader, capacity: 64) { _, _ in
        seen += 1
        return seen < 2
    }
    #expect(seen == 2)
    #expect(count == 2)
}
