public import GeoCore
public import RoadNetwork

/// A road network drawn as ASCII art, as OSRM's cucumber tests draw them
/// (`Given a grid size of 10 meters` and a node map):
///
/// ```
/// let map = AsciiRoadMap("""
///     a b c
///       d
///     """, gridSize: 10)
/// map.way("abc", ["highway": "primary"])
/// ```
///
/// Every character column is `gridSize` metres east of the previous one, every line
/// `gridSize` metres south. Lower-case letters are OSM nodes; digits are named points that
/// are not nodes (query positions between nodes). Ways, node tags and restrictions are added
/// by letter; `graph(profile:)` runs them through `RoadGraphBuilder`.
public struct AsciiRoadMap: Sendable {
    /// Metres between neighbouring characters.
    public let gridSize: Double
    /// The position of the top-left character.
    public let origin: Coordinate
    private var points: [Character: Coordinate] = [:]
    private var nodeTags: [Character: [String: String]] = [:]
    private var ways: [(id: Int64, nodes: String, tags: [String: String])] = []
    private var restrictions: [(id: Int64, from: Int64, via: Character, to: Int64, value: String)] = []

    /// Parses the drawing; leading indentation common to all lines is ignored.
    public init(_ drawing: String, gridSize: Double = 10, origin: Coordinate = Coordinate(uncheckedLatitude: 1, longitude: 1)) {
        self.gridSize = gridSize
        self.origin = origin
        let lines = drawing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        let metric = LocalFrame(origin: origin)
        var row = 0
        for line in lines {
            if line.allSatisfy(\.isWhitespace), row == 0 { continue }
            for (column, ch) in line.dropFirst(indent).enumerated() where ch.isLetter || ch.isNumber {
                let lat = origin.latitude - Double(row) * gridSize / metric.metersPerDegreeLatitude
                let lon = origin.longitude + Double(column) * gridSize / metric.metersPerDegreeLongitude
                points[ch] = Coordinate(uncheckedLatitude: lat, longitude: lon)
            }
            row += 1
        }
    }

    /// The position of a letter or digit in the drawing, or nil when absent.
    public func coordinate(_ name: Character) -> Coordinate? { points[name] }

    /// The OSM node id given to a letter.
    public func nodeID(_ name: Character) -> Int64 { Int64(name.unicodeScalars.first?.value ?? 0) }

    /// Adds a way through the letters in order and returns its OSM id (1, 2, 3, …).
    @discardableResult
    public mutating func way(_ nodes: String, _ tags: [String: String] = ["highway": "primary"]) -> Int64 {
        let id = Int64(ways.count + 1)
        ways.append((id, nodes, tags))
        return id
    }

    /// Tags a node (a barrier, traffic signals, …).
    public mutating func tag(_ name: Character, _ tags: [String: String]) {
        nodeTags[name] = tags
    }

    /// Adds a via-node restriction (`no_left_turn`, `only_straight_on`, …).
    public mutating func restriction(from: Int64, via: Character, to: Int64, _ value: String) {
        restrictions.append((Int64(1000 + restrictions.count), from, via, to, value))
    }

    /// Builds the graph for a profile; nodes that no way uses are left out of the builder.
    public func graph(profile: Profile) -> (graph: RoadGraph, report: RoadGraphBuildReport) {
        var builder = RoadGraphBuilder(profile: profile)
        for (name, c) in points where name.isLetter {
            builder.addNode(id: nodeID(name), latitudeE7: Int32((c.latitude * 1e7).rounded()),
                            longitudeE7: Int32((c.longitude * 1e7).rounded()), tags: nodeTags[name] ?? [:])
        }
        for w in ways {
            builder.addWay(id: w.id, nodeIDs: w.nodes.map { nodeID($0) }, tags: w.tags)
        }
        for r in restrictions {
            builder.addRestriction(id: r.id, fromWay: r.from, viaNode: nodeID(r.via), toWay: r.to, restriction: r.value)
        }
        return builder.build()
    }
}
