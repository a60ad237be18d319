public import GeoBase

extension Geodesic {
    /// Solves the inverse problem for every line `lat1 lon1 lat2 lon2` of `source` (decimal
    /// degrees separated by spaces or tabs, ``CoordinatePairLine``: the input of `geod -I` and
    /// GeographicLib's GeodSolve) and writes `distance_m initial_bearing_deg final_bearing_deg`
    /// for each to `sink`, in order, every number at round-trip precision (the shortest
    /// decimal that reads back as the same double): `geo distance --batch`. A bad line gets no
    /// output line; `badLine` is told its number and why, and the other lines are answered.
    /// Output goes to `sink` in pieces of about 64 KiB and at the end; nothing is allocated per
    /// line.
    /// - Returns: how many lines were read, and how many of them were bad.
    /// - Throws: ``LineReadError`` when reading stops (what was answered before it is written
    ///   first), or what `sink` throws (reading stops at once).
    /// - Complexity: O(bytes of input).
    public func solveInverseLines(from source: inout some ByteSource, to sink: inout some ByteSink,
                                  badLine: (_ number: Int, _ error: GeoCoreError) -> Void) throws -> (lines: Int, bad: Int) {
        var out = LineOutput()
        var bad = 0
        var sinkError: (any Error)?
        let lines: Int
        do {
            lines = try LineReader.forEachLine(of: &source) { bytes, number in
                let pair: CoordinatePairLine
                do throws(GeoCoreError) { pair = try CoordinatePairLine(parsing: bytes) } catch {
                    bad += 1
                    badLine(number, error)
                    return true
                }
                let r = inverse(fromLatitude: pair.latitude1, longitude: pair.longitude1, toLatitude: pair.latitude2, longitude: pair.longitude2)
                r.distance.meters.write(to: &out)
                out.bytes.append(0x20)
                r.initialBearing.degrees.write(to: &out)
                out.bytes.append(0x20)
                r.finalBearing.degrees.write(to: &out)
                out.bytes.append(0x0A)
                guard out.bytes.count >= LineOutput.piece else { return true }
                do { try out.flush(to: &sink) } catch { sinkError = error }
                return sinkError == nil
            }
        } catch {
            try out.flush(to: &sink)
            throw error
        }
        if let sinkError { throw sinkError }
        try out.flush(to: &sink)
        return (lines, bad)
    }
}

/// The bytes of answered lines before they go to the sink; `Double.write(to:)` hands its
/// digits to `_writeASCII` without building a `String`.
private struct LineOutput: TextOutputStream {
    /// Bytes collected before a write to the sink.
    static let piece = 1 << 16
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(Self.piece + 128) }

    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }

    /// Writes what was collected to `sink` and starts again.
    mutating func flush(to sink: inout some ByteSink) throws {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { try sink.write($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

extension GeodesicInverseResult {
    /// The result as `geo distance LAT,LON LAT,LON` prints it: the distance (in metres to
    /// 3 decimals below 1 km, else kilometres to 3 decimals) and the initial and final
    /// bearings (degrees to 2 decimals), each followed by its value at round-trip precision
    /// in parentheses.
    public var summaryLines: [String] {
        let meters = distance.meters
        let human = meters < 1000 ? "\(Self.rounded(meters, 3)) m" : "\(Self.rounded(meters / 1000, 3)) km"
        return [
            "distance:        \(human) (\(meters) m)",
            "initial bearing: \(Self.rounded(initialBearing.degrees, 2))° (\(initialBearing.degrees)°)",
            "final bearing:   \(Self.rounded(finalBearing.degrees, 2))° (\(finalBearing.degrees)°)",
        ]
    }

    /// `x` rounded to `places` decimals (half away from zero), as a double.
    private static func rounded(_ x: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (x * scale).rounded() / scale
    }
}
