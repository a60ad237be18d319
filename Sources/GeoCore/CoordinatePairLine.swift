import GeoBase

/// One line of a batch of geodesic problems (`geo distance --batch`, as `geod -I` and
/// GeographicLib's GeodSolve read them): `lat1 lon1 lat2 lon2` in decimal degrees, separated by
/// spaces or tabs, parsed straight from the line's bytes without allocating.
package struct CoordinatePairLine: Sendable {
    /// The first point's latitude and longitude, degrees.
    package var latitude1: Double, longitude1: Double
    /// The second point's latitude and longitude, degrees.
    package var latitude2: Double, longitude2: Double

    /// Parses one line, without its line break.
    /// - Throws: `GeoCoreError` naming the field: `.invalidArgument` for an empty line, a field
    ///   that is not a finite decimal number (`DecimalNumber`'s syntax) or a number of fields
    ///   other than four; `.invalidLatitude` for a latitude outside [-90, 90] degrees. Longitudes
    ///   may be any finite number.
    /// - Complexity: O(bytes of the line).
    @inlinable
    package init(parsing line: UnsafeBufferPointer<UInt8>) throws(GeoCoreError) {
        guard let p = line.baseAddress else { throw Self.emptyLine() }
        let count = line.count
        var values = (0.0, 0.0, 0.0, 0.0)
        var field = 0
        var i = 0
        while true {
            while i < count && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
            if i == count { break }
            let tokenStart = i
            while i < count && p[i] != 0x20 && p[i] != 0x09 { i += 1 }
            field += 1
            if field > 4 { continue } // counted for the message only
            guard let v = DecimalNumber.parse(p + tokenStart, count: i - tokenStart), v.isFinite else {
                throw Self.notANumber(field: field, UnsafeBufferPointer(start: p + tokenStart, count: i - tokenStart))
            }
            switch field {
            case 1: values.0 = v
            case 2: values.1 = v
            case 3: values.2 = v
            default: values.3 = v
            }
        }
        if field == 0 { throw Self.emptyLine() }
        if field != 4 { throw GeoCoreError(.invalidArgument, "expected 4 fields 'lat1 lon1 lat2 lon2', found \(field)") }
        if !(abs(values.0) <= 90) { throw Self.latitudeOutside(values.0, field: 1) }
        if !(abs(values.2) <= 90) { throw Self.latitudeOutside(values.2, field: 3) }
        (latitude1, longitude1, latitude2, longitude2) = values
    }

    @usableFromInline
    static func emptyLine() -> GeoCoreError { GeoCoreError(.invalidArgument, "empty line (expected 'lat1 lon1 lat2 lon2')") }

    /// The token is shown up to its first 40 bytes.
    @usableFromInline
    static func notANumber(field: Int, _ token: UnsafeBufferPointer<UInt8>) -> GeoCoreError {
        let shown = String(decoding: UnsafeBufferPointer(rebasing: token.prefix(40)), as: UTF8.self)
        return GeoCoreError(.invalidArgument, "field \(field) '\(shown)' is not a finite decimal number")
    }

    @usableFromInline
    static func latitudeOutside(_ latitude: Double, field: Int) -> GeoCoreError {
        GeoCoreError(.invalidLatitude, "latitude \(latitude) in field \(field) is outside [-90, 90]")
    }
}
