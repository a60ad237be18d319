public import Foundation
import SystemIO

/// The on-disk encodings of OSM data this module reads.
public enum OSMFileFormat: String, Sendable, CaseIterable {
    /// Protocolbuffer Binary Format, `.osm.pbf`.
    case pbf
    /// OSM XML, `.osm`, possibly gzip-compressed (`.osm.gz`).
    case xml

    /// How many leading bytes `detect(head:path:)` looks at.
    static let headSize = 64

    /// Detects the format from the first bytes of a file (gzip magic or `<` mean XML; the
    /// 4-byte big-endian length of a PBF BlobHeader starts with a zero byte), not its name.
    /// - Parameter head: up to `headSize` leading bytes; `path` names the file in errors.
    /// - Throws: `OSMError.invalidArgument` when the file is empty or neither format.
    static func detect(head: [UInt8], path: String) throws(OSMError) -> OSMFileFormat {
        guard let first = head.first else { throw OSMError(.invalidArgument, "\(path) is empty") }
        if first == 0x1F || first == 0x3C { return .xml }
        if first == 0x00 { return .pbf }
        // Leading whitespace or a UTF-8 byte-order mark before the XML declaration.
        if head.drop(while: { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }).first == 0x3C { return .xml }
        throw OSMError(.invalidArgument, "\(path) is neither OSM PBF nor OSM XML")
    }
}

/// Reads any OSM file (`.osm.pbf`, `.osm`, `.osm.gz`) with the matching reader.
///
/// The file is opened once and its format sniffed from the first bytes read from that
/// descriptor, which the reader of that format then continues from: a FIFO or a device
/// (`<(zcat x.osm.gz)`, `<(cat x.osm.pbf)`) reads like a file.
public enum OSMFileReader {
    /// Reads all elements of the file in blocks, in file order.
    /// - Parameter detected: called with the file's format before the first block.
    /// - Returns: counts and the header (or `<bounds>`); with `options.recovering`, after
    ///   damage, the counts of the elements delivered before it and the `damage`.
    /// - Throws: `OSMError` for unreadable or bad input (earlier blocks have been delivered;
    ///   when recovering only for `.io` and for a file with no element before the damage),
    ///   or whatever `body` throws.
    @discardableResult
    public static func read(url: URL, options: OSMReadOptions = OSMReadOptions(),
                            detected: (OSMFileFormat) -> Void = { _ in },
                            _ body: (OSMElementBlock) throws -> Void) throws -> OSMReadSummary {
        try read(url: url, options: options, detected: detected, contents: body)
    }

    /// Counts the elements of the file and measures the extent of its nodes, as `read` would
    /// find them, without building the elements: PBF blocks are decoded only into counts (the
    /// same fields and string indices are checked, so a bad block fails alike); XML is read as
    /// elements.
    /// - Returns: what `read` returns for the same file and options, and the node extent.
    /// - Throws: as `read`.
    public static func statistics(url: URL, options: OSMReadOptions = OSMReadOptions(),
                                  detected: (OSMFileFormat) -> Void = { _ in }) throws -> OSMFileStatistics {
        var statistics = OSMFileStatistics()
        statistics.summary = try read(url: url, options: options, detected: detected) { (block: OSMBlockStatistics) in
            statistics.nodeExtent.formUnion(block.nodeExtent)
        }
        return statistics
    }

    /// `read`, with each block turned into `Content`.
    private static func read<Content: OSMBlockContent>(url: URL, options: OSMReadOptions, detected: (OSMFileFormat) -> Void,
                                                       contents body: (Content) throws -> Void) throws -> OSMReadSummary {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor(opening: url.path) } catch { throw OSMError(.io, "\(error)") }
        defer { try? descriptor.close() }
        let chunks = OSMXMLReader.FileChunks(descriptor: descriptor, size: OSMFileFormat.headSize)
        // A pipe may hand out fewer bytes per read than asked: gather the head until it is full
        // or the input ends.
        var head: [UInt8] = []
        while head.count < OSMFileFormat.headSize, let more = try chunks.next() { head += more }
        let format = try OSMFileFormat.detect(head: head, path: url.path)
        detected(format)
        var delivered = OSMReadSummary()
        do {
            switch format {
            case .pbf:
                var frames = PBFFrameStream(descriptor, alreadyRead: head)
                return try OSMPBFReader.read(&frames, options: options) { (block: Content) in
                    delivered.add(block)
                    try body(block)
                }
            case .xml:
                var headGiven = false
                let rest = OSMXMLReader.FileChunks(descriptor: descriptor)
                return try OSMXMLReader.parse(chunks: {
                    if headGiven { return try rest.next() }
                    headGiven = true
                    return head
                }, options: options) {
                    let content = Content($0)
                    delivered.add(content)
                    try body(content)
                }
            }
        } catch let error as OSMError where options.recovering && error.code != .io && delivered.blockCount > 0 {
            delivered.damage = error
            return delivered
        }
    }
}
