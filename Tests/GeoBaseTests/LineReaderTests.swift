import Testing
import GeoBase

/// A source that hands out at most `step` bytes a read, then fails when `fails` is set.
private struct StepSource: ByteSource {
    struct Broken: Error {}
    var inner: MemorySource
    let step: Int
    var fails = false
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = inner.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(step, buffer.count)]))
        if n == 0, fails { throw Broken() }
        return n
    }
}

/// The lines of `text` read in steps of `step` bytes with the reader's buffer of `capacity`.
private func lines(of text: String, capacity: Int, step: Int = .max) throws -> (lines: [String], count: Int) {
    var source = StepSource(inner: MemorySource(string: text), step: step)
    var got: [String] = []
    let count = try LineReader.forEachLine(of: &source, capacity: capacity) { bytes, number in
        #expect(number == got.count + 1)
        got.append(String(decoding: bytes, as: UTF8.self))
        return true
    }
    return (got, count)
}

/// LF and CRLF endings, an empty line, a last line without a newline; lines that straddle the
/// buffer's reads (capacity 8 bytes for lines of up to 7, reads of 1 to 3 bytes) come out whole.
@Test func lineReader_splitsLines_acrossReads_crlfAndNoFinalNewline() throws {
    let text = "1 2 3\r\n\nabcdefg\nxy\r\nlast"
    for capacity in [8, 9, 13, 64] {
        for step in [1, 3, Int.max] {
            let (got, count) = try lines(of: text, capacity: capacity, step: step)
            #expect(got == ["1 2 3", "", "abcdefg", "xy", "last"], "capacity \(capacity), step \(step)")
            #expect(count == 5)
        }
    }
    #expect(try lines(of: "", capacity: 8).lines.isEmpty)
    #expect(try lines(of: "a\n", capacity: 8).lines == ["a"])
}

/// A line as long as the buffer is an error naming its number; the lines before it were read.
@Test func lineReader_lineLongerThanTheBuffer_isTypedError_withItsNumber() throws {
    var got: [String] = []
    var source = MemorySource(string: "ok\n" + String(repeating: "x", count: 40) + "\nnever\n")
    let error = #expect(throws: LineReadError.self) {
        _ = try LineReader.forEachLine(of: &source, capacity: 16) { bytes, _ in
            got.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
    }
    #expect(error?.code == .lineTooLong)
    #expect(error?.line == 2 && error?.capacity == 16)
    #expect(error?.description == "line 2 is longer than 16 bytes")
    #expect(got == ["ok"])
}

/// A failing source is `.readFailed` with the source's error and the number of the line being
/// read; the complete lines before it were handed over.
@Test func lineReader_failingSource_isReadFailed_withTheLineAndCause() throws {
    var source = StepSource(inner: MemorySource(string: "a\nb\npart"), step: 64, fails: true)
    var got: [String] = []
    let error = #expect(throws: LineReadError.self) {
        _ = try LineReader.forEachLine(of: &source, capacity: 64) { bytes, _ in
            got.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
    }
    #expect(error?.code == .readFailed && error?.line == 3)
    #expect(error?.underlying is StepSource.Broken)
    #expect(got == ["a", "b"])
}

/// `body` returning false stops the reading at once.
@Test func lineReader_stopsWhenTheBodySaysSo() throws {
    var source = MemorySource(string: "a\nb\nc\n")
    var seen = 0
    let count = try LineReader.forEachLine(of: &source, capacity: 64) { _, _ in
        seen += 1
        return seen < 2
    }
    #expect(seen == 2)
    #expect(count == 2)
}
