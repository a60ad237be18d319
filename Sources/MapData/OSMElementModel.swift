/// The OSM element model shared by the readers (OSMImport) and the map schema (MapData): the
/// element kinds and relation members. It lives here, in the pure module both depend on,
/// so there is one type for each (OSMImport's nodes, ways and relations use them).

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
