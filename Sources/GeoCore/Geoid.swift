public import GeoBase
/// A geoid model: the height N of the geoid (mean sea level) above the WGS84 ellipsoid on a
/// regular latitude/longitude grid, interpolated bilinearly between the four surrounding
/// nodes, as PROJ's `vgridshift` does. An ellipsoidal height is h = H + N, where H is the
/// height above mean sea level (NMEA GGA's altitude).
///
/// GeoCore parses grids (`init(gtx:name:)`, PROJ's format) but reads no files: SystemIO's
/// `GeoidGridFiles` finds PROJ's EGM96 grid (`egm96_15.gtx`) where PROJ's data is installed.
public struct Geoid: Sendable {
    /// What the model is, for people and logs (`"EGM96 (15' grid, /usr/share/proj/egm96_15.gtx)"`).
    public let name: String
    /// Latitude of the first row and longitude of the first column, degrees.
    public let south: Double, west: Double
    /// Node spacing, degrees.
    public let latitudeSpacing: Double, longitudeSpacing: Double
    public let rows: Int, columns: Int
    /// Geoid heights in metres, row-major from the south row, each row from west to east;
    /// NaN where the grid has no data.
    private let heights: [Float]
    /// Whether the columns go once round the globe, so the last one neighbours the first.
    private let wrapsLongitude: Bool

    /// A grid of geoid heights.
    /// - Parameters:
    ///   - south, west: degrees, the position of the first node.
    ///   - latitudeSpacing, longitudeSpacing: degrees between nodes, positive.
    ///   - heights: `rows × columns` heights in metres, row-major from the south row, each row
    ///     from west to east; NaN marks a node without data.
    /// - Throws: `GeoCoreError` `.invalidGeoidGrid` naming the value at fault.
    public init(name: String, south: Double, west: Double, latitudeSpacing: Double, longitudeSpacing: Double,
                rows: Int, columns: Int, heights: [Float]) throws(GeoCoreError) {
        guard rows >= 2, columns >= 2 else {
            throw GeoCoreError(.invalidGeoidGrid, "\(name): \(rows) × \(columns) nodes; a grid needs at least 2 × 2")
        }
        guard latitudeSpacing > 0, longitudeSpacing > 0, latitudeSpacing.isFinite, longitudeSpacing.isFinite else {
            throw GeoCoreError(.invalidGeoidGrid, "\(name): spacing \(latitudeSpacing)° × \(longitudeSpacing)° is not positive")
        }
        let north = south + Double(rows - 1) * latitudeSpacing
        guard south >= -90 - 1e-9, north <= 90 + 1e-9, west.isFinite else {
            throw GeoCoreError(.invalidGeoidGrid, "\(name): latitudes \(south)° to \(north)° leave [-90°, 90°] (west \(west)°)")
        }
        guard heights.count == rows * columns else {
            throw GeoCoreError(.invalidGeoidGrid, "\(name): \(heights.count) heights for \(rows) × \(columns) nodes")
        }
        self.name = name
        self.south = south
        self.west = west
        self.latitudeSpacing = latitudeSpacing
        self.longitudeSpacing = longitudeSpacing
        self.rows = rows
        self.columns = columns
        self.heights = heights
        wrapsLongitude = abs(Double(columns) * longitudeSpacing - 360) < 1e-9
    }

    /// The geoid height N above the WGS84 ellipsoid at `coordinate`, bilinearly interpolated;
    /// nil outside the grid or next to a node without data.
    /// - Complexity: O(1).
    public func separation(at coordinate: Coordinate) -> Distance? {
        let y = (coordinate.latitude - south) / latitudeSpacing
        // Degrees east of the first column, in [0, 360): grids given in 0…360° longitudes work too.
        var east = (coordinate.longitude - west).truncatingRemainder(dividingBy: 360)
        if east < 0 { east += 360 }
        let x = east / longitudeSpacing
        let lastRow = Double(rows - 1), lastColumn = Double(wrapsLongitude ? columns : columns - 1)
        guard y >= -1e-9, y <= lastRow + 1e-9, x >= -1e-9, x <= lastColumn + 1e-9 else { return nil }
        let row = min(max(Int(y), 0), rows - 2)
        let column = min(max(Int(x), 0), wrapsLongitude ? columns - 1 : columns - 2)
        let nextColumn = column + 1 == columns ? 0 : column + 1
        let fy = min(max(y - Double(row), 0), 1), fx = min(max(x - Double(column), 0), 1)
        func h(_ r: Int, _ c: Int) -> Double { Double(heights[r * columns + c]) }
        let southValue = h(row, column) * (1 - fx) + h(row, nextColumn) * fx
        let northValue = h(row + 1, column) * (1 - fx) + h(row + 1, nextColumn) * fx
        let n = southValue * (1 - fy) + northValue * fy
        return n.isNaN ? nil : .meters(n)
    }
}

extension Geoid: Hashable {
    /// Grids are equal when their parameters and every height (bit for bit, so no-data nodes
    /// compare equal) are.
    public static func == (a: Geoid, b: Geoid) -> Bool {
        a.name == b.name && a.south == b.south && a.west == b.west && a.latitudeSpacing == b.latitudeSpacing
            && a.longitudeSpacing == b.longitudeSpacing && a.rows == b.rows && a.columns == b.columns
            && a.heights.lazy.map(\.bitPattern).elementsEqual(b.heights.lazy.map(\.bitPattern))
    }

    /// Hashes the parameters only (equal grids have equal parameters): O(1).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(rows)
        hasher.combine(columns)
        hasher.combine(south)
        hasher.combine(west)
    }
}

extension Geoid {
    /// Reads a grid in NOAA's GTX format, as PROJ does: a 40-byte big-endian header
    /// (latitude and longitude of the south-west node, latitude and longitude spacing, as
    /// Float64 degrees; rows and columns as Int32), then `rows × columns` big-endian Float32
    /// heights in metres, rows from south to north, each from west to east. -88.8888 marks a
    /// node without data (PROJ's convention).
    /// - Throws: `GeoCoreError` `.invalidGeoidGrid` with the byte offset at fault.
    public init(gtx bytes: some Collection<UInt8>, name: String) throws(GeoCoreError) {
        let data = Array(bytes)
        guard data.count >= 40 else {
            throw GeoCoreError(.invalidGeoidGrid, "\(name): byte \(data.count): the GTX header needs 40 bytes")
        }
        func word(at offset: Int, count: Int) -> UInt64 {
            data[offset ..< offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        func float64(at offset: Int) -> Double { Double(bitPattern: word(at: offset, count: 8)) }
        let rows = Int(Int32(bitPattern: UInt32(word(at: 32, count: 4))))
        let columns = Int(Int32(bitPattern: UInt32(word(at: 36, count: 4))))
        // rows × columns < 2^62 cannot overflow; the byte count is compared in values.
        guard rows > 0, columns > 0, (data.count - 40) % 4 == 0, (data.count - 40) / 4 == rows * columns else {
            throw GeoCoreError(.invalidGeoidGrid,
                               "\(name): byte 32: \(rows) rows × \(columns) columns need 40 + 4 × \(rows) × \(columns) bytes, found \(data.count)")
        }
        // One bulk copy of the big-endian words, then one byte-order pass (not 4 bytes at a time).
        var heights = [Float](repeating: 0, count: rows * columns)
        heights.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[40...])) }
        }
        for i in heights.indices {
            let value = Float(bitPattern: UInt32(bigEndian: heights[i].bitPattern))
            heights[i] = abs(value + 88.8888) < 1e-3 ? .nan : value
        }
        try self.init(name: name, south: float64(at: 0), west: float64(at: 8), latitudeSpacing: float64(at: 16),
                      longitudeSpacing: float64(at: 24), rows: rows, columns: columns, heights: heights)
    }
}

extension ErrorCode where Domain == GeoCoreError {
    /// A geoid grid whose header, size or spacing is inconsistent.
    public static var invalidGeoidGrid: Self { Self("invalid geoid grid") }
}
