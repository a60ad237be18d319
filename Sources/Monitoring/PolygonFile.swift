import GeoCore
import GeoBase

extension PolygonRegion {
    /// Reads an Osmosis polygon filter file (`.poly`; OpenStreetMap wiki, "Osmosis/Polygon Filter
    /// File Format"): a name line, then sections, each a name line, `longitude latitude` lines
    /// and `END`, then a final `END`. A section whose name starts with `!` is a hole: it is cut
    /// from the polygon whose exterior contains it. An unclosed section is closed.
    /// - Parameter file: a name for error locations (`monaco.poly`).
    /// - Throws: `MonitoringError.invalidRegionsFile` with the line at fault, or what
    ///   ``init(polygons:)`` throws for the rings read.
    public init(osmosisPoly text: String, file: String = "poly") throws(MonitoringError) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { String($0).trimmedOfSpaces }
        var i = 0
        func next() -> (Int, String)? {
            while i < lines.count {
                defer { i += 1 }
                if !lines[i].isEmpty { return (i + 1, lines[i]) }
            }
            return nil
        }
        guard next() != nil else { throw MonitoringError(.invalidRegionsFile, "empty polygon file", at: "\(file):1") }
        var shells: [[Coordinate]] = [], holes: [(ring: [Coordinate], line: Int)] = []
        var ended = false
        while let (number, name) = next() {
            if name == "END" { ended = true; break }
            var ring: [Coordinate] = []
            var closed = false
            while let (n, line) = next() {
                if line == "END" { closed = true; break }
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard parts.count == 2, let lon = Double(parts[0]), let lat = Double(parts[1]) else {
                    throw MonitoringError(.invalidRegionsFile, "expected 'longitude latitude' or END, got '\(line)'", at: "\(file):\(n)")
                }
                do { ring.append(try Coordinate(latitude: lat, longitude: lon)) } catch {
                    throw MonitoringError(.invalidRegionsFile, error.message, at: "\(file):\(n)")
                }
            }
            guard closed else { throw MonitoringError(.invalidRegionsFile, "section '\(name)' has no END", at: "\(file):\(number)") }
            if let first = ring.first, ring.last != first { ring.append(first) }
            if name.hasPrefix("!") { holes.append((ring, number)) } else { shells.append(ring) }
        }
        guard ended else { throw MonitoringError(.invalidRegionsFile, "the file has no final END", at: "\(file):\(lines.count)") }
        guard !shells.isEmpty else { throw MonitoringError(.invalidRegionsFile, "no polygon section", at: "\(file):1") }
        var polygons = shells.map { [$0] }
        for hole in holes {
            var owner: Int?
            for p in polygons.indices where owner == nil {
                if let first = hole.ring.first, try PolygonRegion(polygons: [[polygons[p][0]]]).contains(first) { owner = p }
            }
            guard let owner else {
                throw MonitoringError(.invalidRegionsFile, "a hole outside every polygon", at: "\(file):\(hole.line)")
            }
            polygons[owner].append(hole.ring)
        }
        do { try self.init(polygons: polygons) } catch { throw MonitoringError(error.code, error.message, at: file) }
    }
}
