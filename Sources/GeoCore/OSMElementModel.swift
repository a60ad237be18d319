/// The OSM element model every OSM consumer shares: the element kinds and relation members,
/// used by the readers and writers (OSMImport's nodes, ways and relations), the map schema
/// (MapData: features, multipolygons, boundaries) and the road graph (RoadNetwork: turn
/// restrictions). It lives here, in the pure root module all of them depend on (DESIGN.md
/// §2), so there is one type for each.

/// The three kinds of OSM element.
public enum OSMElementType: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case node = 0, way = 1, relation = 2

    public var description: String {
        switch self {
        case .node: "node"
        case .way: "way"
        case .relation: "relation"
        }
    }
}

/// One member of a relation: which element, and its role (e.g. `from`, `via`, `to`, `outer`).
public struct OSMMember: Hashable, Sendable {
    public var type: OSMElementType
    public var ref: Int64
    public var role: String

    public init(type: OSMElementType, ref: Int64, role: String) {
        self.type = type
        self.ref = ref
        self.role = role
    }
}
