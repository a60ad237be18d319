public import GeoBase
import GeoCore
public import GPXCodec
public import NMEACodec
public import SystemIO

/// `geo nmea decode`'s outputs: a fix as one JSON line, or as a GPX track point.
extension NMEAFix {
    /// Appends the fix as one JSON object and a newline, straight into `out` (no `String` per
    /// fix): `time` (ISO 8601 UTC), `mode` (0 unknown, 1 no fix, 2 2D, 3 3D), `lat`, `lon`,
    /// `altMSL`, `altHAE`, `speed`, `track`, `climb`, `eph`, `epv`, `hdop` with ``JSONNumber``'s
    /// decimals per quantity (gpsd's TPV), and `satellitesUsed`; `null` when unknown.
    public func writeJSONLine(to out: inout BufferedWriter) {
        out.append("{\"time\":")
        withISOTime { time in
            guard let time else { return out.append("null") }
            out.append(byte: UInt8(ascii: "\""))
            out._writeASCII(time)
            out.append(byte: UInt8(ascii: "\""))
        }
        out.append(",\"mode\":")
        out.append(integer: mode?.rawValue ?? 0)
        out.append(",\"lat\":"); out.append(latitude, .coordinate)
        out.append(",\"lon\":"); out.append(longitude, .coordinate)
        out.append(",\"altMSL\":"); out.append(altitudeMSL, .altitude)
        out.append(",\"altHAE\":"); out.append(altitudeHAE, .altitude)
        out.append(",\"speed\":"); out.append(speed, .speed)
        out.append(",\"track\":"); out.append(track, .course)
        out.append(",\"climb\":"); out.append(climb, .speed)
        out.append(",\"eph\":"); out.append(eph, .error)
        out.append(",\"epv\":"); out.append(epv, .error)
        out.append(",\"hdop\":"); out.append(sky.hdop, .dop)
        out.append(",\"satellitesUsed\":")
        if let used = sky.satellitesUsed { out.append(integer: used) } else { out.append("null") }
        out.append("}\n")
    }
}

extension GPXPoint {
    /// The fix as a GPX track point (GPX 1.1 `wptType`), or nil without a time and a 2D or 3D
    /// position: elevation is MSL, `fix` is dgps for differential fixes, DOPs from the sky.
    public init?(_ f: NMEAFix) {
        guard let time = f.time, let lat = f.latitude, let lon = f.longitude, let mode = f.mode, mode >= .twoDimensional,
              let coordinate = try? Coordinate(latitude: lat, longitude: lon) else { return nil }
        self.init(coordinate: coordinate, elevation: mode == .threeDimensional ? f.altitudeMSL.map(Distance.meters) : nil, time: time)
        geoidHeight = f.geoidSeparation.map(Distance.meters)
        fix = f.quality == .differential ? .dgps : (mode == .threeDimensional ? .threeDimensional : .twoDimensional)
        satellites = f.sky.satellitesUsed.flatMap { $0 >= 0 ? $0 : nil }
        hdop = f.sky.hdop
        vdop = f.sky.vdop
        pdop = f.sky.pdop
    }
}

extension BufferedWriter {
    /// Appends a constant ASCII text (JSON keys and punctuation).
    fileprivate mutating func append(_ text: StaticString) {
        _writeASCII(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal.
    fileprivate mutating func append(integer value: Int) {
        JSONNumber.withText(ofInteger: Int64(value)) { _writeASCII($0) }
    }

    /// Appends ``JSONNumber/string(_:_:)``'s text without building a `String`.
    fileprivate mutating func append(_ value: Double?, _ quantity: JSONNumber.Quantity) {
        JSONNumber.withText(of: value, quantity) { _writeASCII($0) }
    }
}

extension NMEADecoder {
    /// Decodes `source` to its end into a GPX 1.1 document of one track named `trackName` with
    /// one segment: a track point per fix that has a time and a 2D or 3D position
    /// (``GPXPoint/init(_:)``), streamed to `sink` as the fixes complete (`geo nmea decode
    /// --format gpx`). After a failed write the rest of `source` is still decoded (the
    /// scanner's statistics count every line) and nothing more is written.
    /// - Returns: the sink, after the document's closing tag.
    /// - Throws: what reading `source` throws; the first error writing to `sink` threw.
    public mutating func writeGPXTrack<Sink: ByteSink>(from source: inout some ByteSource, to sink: Sink,
                                                       trackName: String, creator: String) throws -> Sink {
        var writer = try GPXStreamWriter(sink: sink, header: GPXHeader(creator: creator))
        try writer.beginTrack(GPXPathInfo(name: trackName))
        try writer.beginSegment()
        var failure: (any Error)?
        let emit: (NMEAFix) -> Void = { fix in
            guard failure == nil, let point = GPXPoint(fix) else { return }
            do { try writer.write(trackPoint: point) } catch { failure = error }
        }
        try source.forEachChunk { chunk in decode(chunk, emit) }
        finish(emit)
        if let failure { throw failure }
        try writer.endSegment()
        try writer.endTrack()
        return try writer.finish()
    }
}
