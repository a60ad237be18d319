import Foundation
import GPXCodec
import SystemIO
import Platform
import GeoBase

/// The log file as a `GPXCompletingSink`: each write goes where the closing tags of the
/// previous one start (`pwrite(2)` at that offset), so the file is a complete GPX document
/// after every write.
///
/// **No torn write on a kill.** Linux may stop a `write(2)` early between two pages when the
/// process gets SIGKILL (`generic_perform_write` checks `fatal_signal_pending` before each
/// page), so a write that crosses a page boundary can be cut there; a write within one page
/// cannot. A write that would cross the boundary `B` is therefore made of single-page writes,
/// each leaving a valid document, with the part beyond `B` first parked in a processing
/// instruction after `</gpx>` (XML allows them after the root element):
///
/// 1. after the old closing tags, up to `B`: `<?pad ?>`;  `B`: `<?q?>`;  `B-2`: two spaces,
///    so the `pad` instruction now runs on into the next page up to `<?q?>`'s `?>`;
/// 2. at `B`: the bytes beyond `B`, then `<?z?>` (still the `pad` instruction's content);
/// 3. at the old closing tags: the bytes before `B` — the document now holds the new point
///    and closing tags, the rest `<?z?>`, an instruction after the root;
/// 4. spaces over `<?z?>`.
///
/// Step 1 needs room for `<?pad ?>` between the old closing tags and `B`, so no write leaves
/// its closing tags across a page boundary or in the last 8 bytes of a page: spaces before them
/// (white space between elements, which readers ignore) move them to the next page instead.
/// (Without that, a point whose old closing tags straddled `B` was one `pwrite(2)`, and a kill
/// inside it tore the file: PositionLogTests' crash test, once in five full test runs.)
///
/// A write that spans more than two pages (a batch) or contains `?>` is made as one
/// `pwrite(2)`: a kill may then tear it, and reopening repairs the log.
struct LogFileSink: GPXCompletingSink {
    let descriptor: FileDescriptor
    let path: String
    /// Where the closing tags start, bytes from the start of the file.
    private(set) var closingTagsOffset: Int64
    /// Where the document ends (the end of the last write); only spaces may follow it.
    private var documentEnd: Int64
    /// The page size, bytes: the unit in which the kernel copies a write.
    private let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
    /// The bytes of one step, reused (a page and a little).
    private var step: [UInt8] = []
    /// A write with spaces before its closing tags, reused.
    private var padded: [UInt8] = []
    /// Bytes `<?pad ?>` needs before a page boundary.
    private static let padRoom: Int64 = 8

    init(_ descriptor: FileDescriptor, path: String, closingTagsOffset: Int64 = 0) {
        self.descriptor = descriptor
        self.path = path
        self.closingTagsOffset = closingTagsOffset
        documentEnd = closingTagsOffset
        step.reserveCapacity(Int(pageSize) + 16)
    }

    /// Writes `bytes` over the old closing tags: one `pwrite(2)` within a page, else the
    /// single-page steps above; closing tags that would cross a page boundary or end in its
    /// last `padRoom` bytes start at the boundary instead.
    /// - Throws: `PositioningError.io` naming the path; the offset then stays, so the next
    ///   write covers the failed one.
    mutating func write(_ bytes: UnsafeRawBufferPointer, closingTagCount: Int) throws {
        let closingStart = closingTagsOffset + Int64(bytes.count - closingTagCount)
        let closingBoundary = (closingStart / pageSize + 1) * pageSize
        guard closingTagCount > 0, closingStart + Int64(closingTagCount) > closingBoundary - Self.padRoom,
              Int64(closingTagCount) <= pageSize - Self.padRoom else {
            return try place(bytes, closingTagCount: closingTagCount)
        }
        var padded = self.padded
        self.padded = []
        padded.removeAll(keepingCapacity: true)
        padded.append(contentsOf: bytes[..<(bytes.count - closingTagCount)])
        padded.append(contentsOf: repeatElement(0x20, count: Int(closingBoundary - closingStart)))
        padded.append(contentsOf: bytes[(bytes.count - closingTagCount)...])
        defer { self.padded = padded }
        try padded.withUnsafeBytes { raw in try place(raw, closingTagCount: closingTagCount) }
    }

    private mutating func place(_ bytes: UnsafeRawBufferPointer, closingTagCount: Int) throws {
        let start = closingTagsOffset, end = closingTagsOffset + Int64(bytes.count)
        let boundary = (start / pageSize + 1) * pageSize
        do {
            if end <= boundary || end - boundary + 5 > pageSize || boundary - documentEnd < 8 || bytes.containsInstructionEnd {
                try descriptor.writeAll(bytes, atOffset: start)
            } else {
                let head = Int(boundary - start)
                step.removeAll(keepingCapacity: true)
                append("<?pad")
                step.append(contentsOf: repeatElement(0x20, count: Int(boundary - documentEnd) - 7))
                append("?>")
                try writeStep(at: documentEnd)
                try write("<?q?>", at: boundary)
                try write("  ", at: boundary - 2)
                step.removeAll(keepingCapacity: true)
                step.append(contentsOf: bytes[head...])
                append("<?z?>")
                try writeStep(at: boundary)
                try descriptor.writeAll(UnsafeRawBufferPointer(rebasing: bytes[..<head]), atOffset: start)
                try write("     ", at: end)
            }
        } catch {
            throw PositioningError(.io, "cannot write \(path)", underlying: error)
        }
        closingTagsOffset = end - Int64(closingTagCount)
        documentEnd = end
    }

    private mutating func append(_ text: StaticString) {
        step.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private func write(_ text: StaticString, at offset: Int64) throws(SystemIOError) {
        try descriptor.writeAll(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), atOffset: offset)
    }

    private func writeStep(at offset: Int64) throws(SystemIOError) {
        try step.withUnsafeBytes { raw in Result { () throws(SystemIOError) in try descriptor.writeAll(raw, atOffset: offset) } }.get()
    }
}

private extension UnsafeRawBufferPointer {
    /// Whether the bytes contain `?>`, which would end a processing instruction early.
    var containsInstructionEnd: Bool {
        guard count >= 2 else { return false }
        return (0..<(count - 1)).contains { self[$0] == 0x3F && self[$0 + 1] == 0x3E }
    }
}
