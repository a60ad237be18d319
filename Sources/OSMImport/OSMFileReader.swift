public import Foundation
import SystemIO

/// The on-disk encodings of OSM data this module reads.
public enum OSMFileFormat: String, Sendable, CaseIterable {
    /// Protocolbuffer Binary Format, `.osm.pbf`.
    case pbf
    /// OSM XML, `.osm`, possibly gzip-compressed (`.osm.gz`).
    case xml

    /// Detects the format from the first bytes of the file (gzip magic or `<` mean XML; the
    /// 4-byte big-endian length of a PBF BlobHeader starts with a zero byte), not its name.
    /// - Throws: `OSMError.io` when the file cannot be read, `.invalidArgument` when it is empty.
    public static func detect(_ url: URL) throws(OSMError) -> OSMFileFormat {
        let head: [UInt8]
        do throws(SystemIOError) {
            let descriptor = try FileDescriptor(opening: url.path)
            defer { try? descriptor.close() }
            head = try descriptor.read(count: 64, atOffset: 0)
        } catch {
            throw OSMError(.io, "\(error)")
        }
        guard let first = head.first else { throw OSMError(.invalidArgument, "\(url.path) is empty") }
        if first == 0x1F || first == 0x3C { return .xml }
        if first == 0x00 { return .pbf }
        // Leading whitespace or a UTF-8 byte-order mark before the XML declaration.
        if head.drop(while: { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }).first == 0x3C { return .xml }
        throw OSMError(.invalidArgument, "\(url.path) is neither OSM PBF nor OSM XML")
    }
}

/// Reads any OSM file (`.osm.pbf`, `.osm`, `.osm.gz`) with the matching reader.
public enum OSMFileReader {
    /// Reads all elements of the file in blocks, in file order.
    /// - Returns: counts and the header (or `<bounds>`); with `options.recovering`, after
    ///   damage, the counts of the elements delivered before it and the `damage`.
    /// - Throws: `OSMError` for unreadable or bad input (earlier blocks have been delivered;
    ///   when recovering only for `.io` and for a file with no element before the damage),
    ///   or whatever `body` throws.
    @discardableResult
    public static func read(url: URL, options: OSMReadOptions = OSMReadOptions(), _ body: (OSMElementBlock) throws -> Void) throws -> OSMReadSummary {
        let format = try OSMFileFormat.detect(url)
        var delivered = OSMReadSummary()
        do {
            switch format {
            case .pbf: return try OSMPBFReader(url: url, options: options).read { delivered.add($0); try body($0) }
            case .xml: return try OSMXMLReader(url: url, options: options).read { delivered.add($0); try body($0) }
            }
        } catch let error as OSMError where options.recovering && error.code != .io && delivered.blockCount > 0 {
            delivered.damage = error
            return delivered
        }
    }
}
