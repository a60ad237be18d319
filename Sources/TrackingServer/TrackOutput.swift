import Foundation
import GeoCore
import GPXCodec
import GeoBase

/// Stored fixes as the read API's formats.
enum TrackOutput {
    /// A GeoJSON FeatureCollection (RFC 7946) of Point features, one a fix, in fix-time order,
    /// with `time` (ISO 8601 UTC, milliseconds) and the measurements present (metres, m/s,
    /// degrees) as properties.
    /// Written straight to bytes, the same text `GeoJSON.encoded()` (Foundation's `JSONEncoder`,
    /// sorted keys) gave — numbers as Swift prints them, the shortest that reads back exactly;
    /// strings through GeoBase's one escaper — at a fraction of its cost: the encoder took most
    /// of a device-day read (86,400 fixes, an 18 MB reply: 0.8–3.7 s under load; issue 35 asks
    /// ≤ 200 ms).
    static func geoJSON(_ fixes: [StoredFix]) -> [UInt8] {
        var json = GeoJSONWriter(capacity: 64 + fixes.count * 240)
        for fix in fixes { json.append(fix) }
        json.finish()
        return json.out
    }

    /// A track's text in pieces, fed a page of fixes at a time: the read API sends a raw track
    /// (a device-day: 18 MB of GeoJSON) so, rather than holding it whole and then a copy of it
    /// (the kernel's zeroing of those fresh pages was 17 % of a read's CPU samples, perf).
    protocol Pieces {
        /// Writes fixes from the front of `page` (taking them off it) until a piece is done
        /// and returns it; nil when `page` ran out first. A piece ends between two fixes of
        /// `page` of different times, so what is left of `page` is never empty and begins at a
        /// fix time no piece has (for `FixPages.giveBack`).
        mutating func piece(from page: inout ArraySlice<StoredFix>) -> [UInt8]?
        /// The last piece: what is written and not taken, and the document's end.
        mutating func last() -> [UInt8]
    }

    /// `geoJSON` in pieces.
    struct GeoJSONPieces: Pieces {
        private var json: GeoJSONWriter
        private let pieceBytes: Int
        /// `json.out` is a piece handed out: emptied at the next call, when the caller has let
        /// go of it and its buffer is used again (emptied at once, each piece was a fresh one).
        private var handedOut = false

        /// Pieces of at least `pieceBytes` (the last may be shorter).
        init(pieceBytes: Int) {
            json = GeoJSONWriter(capacity: pieceBytes + 1024)
            self.pieceBytes = pieceBytes
        }

        mutating func piece(from page: inout ArraySlice<StoredFix>) -> [UInt8]? {
            takeBack()
            // By index, not `popFirst` and `first`: each fix copied out of the page retained and
            // released its two strings (with the old number text, retains and releases fell
            // from 22 to 14 % of a device-day read's samples, perf).
            while !page.isEmpty {
                let time = page[page.startIndex].fixTime
                json.append(page[page.startIndex])
                page.removeFirst()
                if json.out.count >= pieceBytes, !page.isEmpty, page[page.startIndex].fixTime != time { return taken() }
            }
            return nil
        }

        mutating func last() -> [UInt8] {
            takeBack()
            json.finish()
            return taken()
        }

        private mutating func taken() -> [UInt8] {
            handedOut = true
            return json.out
        }

        private mutating func takeBack() {
            if handedOut { json.out.removeAll(keepingCapacity: true) }
            handedOut = false
        }
    }

    /// One fix's Feature as `geoJSON` writes it in a collection: `/live` encodes each pushed fix
    /// once for all the subscribers that follow its device (per subscriber it was a tenth of a
    /// loaded server's CPU samples with 1,000 subscribers × 100 devices, perf).
    static func feature(_ fix: StoredFix) -> [UInt8] {
        var json = GeoJSONWriter(capacity: 256)
        let start = json.out.count
        json.append(fix)
        return Array(json.out[start...])
    }

    /// The FeatureCollection of features from `feature(_:)`: the bytes `geoJSON` gives for
    /// their fixes.
    static func geoJSON(features: [[UInt8]]) -> [UInt8] {
        var json = GeoJSONWriter(capacity: 64 + features.reduce(0) { $0 + $1.count + 1 })
        for feature in features { json.append(encoded: feature) }
        json.finish()
        return json.out
    }

    /// The text of `geoJSON`, a feature at a time.
    struct GeoJSONWriter {
        /// What is written and not yet taken.
        var out: [UInt8] = []
        private var features = 0
        /// The last device and source written with their JSON literals, used again while they
        /// repeat (a read is one device's fixes): escaping them for every fix was a third of a
        /// device-day read's CPU samples (perf).
        private var device: (text: String, literal: [UInt8])?
        private var source: (text: String, literal: [UInt8])?
        private var time = ISO8601Time.MillisecondWriter()

        /// Begins the collection.
        init(capacity: Int) {
            out.reserveCapacity(capacity)
            out.append(contentsOf: #"{"features":["#.utf8)
        }

        // Stored values are finite (the protocols refuse others); a whole number without ".0",
        // as JSONEncoder writes it.
        private mutating func number(_ value: Double) { ShortestDecimal.append(value, to: &out) }

        /// Appends constant text: its bytes copied at once (`String.utf8` goes through the
        /// generic sequence append: with the numbers' text, 3 % of a device-day read's samples, perf).
        private mutating func raw(_ text: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        private mutating func member(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            raw(name)
            number(value)
            out.append(0x2C)
        }

        /// Appends `text` as a JSON string to `out`, the literal kept in `last` for the next.
        /// Appended in place: returned, the kept literal was retained and released for each
        /// fix (3 % of a device-day read's samples, perf; server CPU a read 36–37 → 35 ms).
        private static func append(literal text: String, to out: inout [UInt8], _ last: inout (text: String, literal: [UInt8])?) {
            if last?.text != text { last = (text, Array(JSONText.quoted(text).utf8)) }
            last?.literal.withUnsafeBufferPointer { out.append(contentsOf: $0) }
        }

        /// Appends the feature of `f`.
        mutating func append(_ f: StoredFix) {
            if features > 0 { out.append(0x2C) }
            features += 1
            raw(#"{"geometry":{"coordinates":["#)
            number(f.longitude)
            out.append(0x2C)
            number(f.latitude)
            raw(#"],"type":"Point"},"properties":{"#)
            member(#""accuracy":"#, f.accuracy)
            member(#""altitude":"#, f.altitude)
            member(#""course":"#, f.course)
            raw(#""device":"#)
            Self.append(literal: f.device, to: &out, &device)
            raw(#","source":"#)
            Self.append(literal: f.source, to: &out, &source)
            out.append(0x2C)
            member(#""speed":"#, f.speed)
            // ISO 8601 text is digits, '-', ':', 'T', '.' and 'Z': nothing JSON escapes.
            raw(#""time":""#)
            time.append(f.fixTime, to: &out)
            raw(#""},"type":"Feature"}"#)
        }

        /// Appends a feature `TrackOutput.feature(_:)` encoded.
        mutating func append(encoded feature: [UInt8]) {
            if features > 0 { out.append(0x2C) }
            features += 1
            out.append(contentsOf: feature)
        }

        /// Ends the collection.
        mutating func finish() {
            out.append(contentsOf: #"],"type":"FeatureCollection"}"#.utf8)
        }
    }

    /// GPX 1.1 with one track of one segment, named after the device.
    static func gpx(_ fixes: [StoredFix], device: String) -> [UInt8] {
        var pieces = GPXPieces(device: device, pieceBytes: .max), page = fixes[...]
        _ = pieces.piece(from: &page)
        return pieces.last()
    }

    /// `gpx` in pieces, through GPXCodec's `GPXStreamWriter`.
    struct GPXPieces: Pieces {
        /// What the writer has handed over and no piece has taken.
        private final class Written: ByteSink {
            var bytes: [UInt8] = []
            func write(_ bytes: UnsafeRawBufferPointer) { self.bytes.append(contentsOf: bytes) }
        }
        private let written = Written()
        private var writer: GPXStreamWriter<Written>?
        private let pieceBytes: Int

        /// Pieces of at least `pieceBytes` (the last may be shorter) of a track named `device`.
        init(device: String, pieceBytes: Int) {
            self.pieceBytes = pieceBytes
            // `Written` never throws, nor so the writer.
            writer = try? GPXStreamWriter(sink: written, header: GPXHeader())
            try? writer?.beginTrack(GPXPathInfo(name: device))
            try? writer?.beginSegment()
        }

        mutating func piece(from page: inout ArraySlice<StoredFix>) -> [UInt8]? {
            while let f = page.popFirst() {
                var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: f.latitude, longitude: f.longitude),
                                 elevation: f.altitude.map(Distance.meters), time: Date(timeIntervalSince1970: Double(f.fixTime) / 1000))
                p.speed = f.speed.map(Speed.metersPerSecond)
                p.course = f.course.map(Bearing.degrees)
                try? writer?.write(trackPoint: p)
                // Handed over point by point (else 64 KiB at a time), so pieces are of the size asked.
                try? writer?.flush()
                if written.bytes.count >= pieceBytes, let next = page.first, next.fixTime != f.fixTime { return taken() }
            }
            return nil
        }

        mutating func last() -> [UInt8] {
            try? writer?.endSegment()
            try? writer?.endTrack()
            _ = try? writer?.finish()
            writer = nil
            return taken()
        }

        private func taken() -> [UInt8] {
            defer { written.bytes.removeAll(keepingCapacity: true) }
            return written.bytes
        }
    }

    /// A time in milliseconds since 1970 as ISO 8601 UTC with milliseconds
    /// (`2026-01-01T00:00:00.123Z`), through GeoBase's one writer, `ISO8601Time`: the text
    /// `geoJSON` gives fixes' times.
    static func iso8601(_ milliseconds: Int64) -> String {
        var writer = ISO8601Time.MillisecondWriter(), out: [UInt8] = []
        writer.append(milliseconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
