/// A point in a tile's integer grid: `x` right, `y` down, 0…extent inside the tile (outside
/// in the buffer). 64-bit, because a valid tile's deltas may carry a coordinate past Int32
/// (the MVT fixtures 049, 050).
public struct TilePoint: Hashable, Sendable {
    public var x: Int64
    public var y: Int64

    public init(x: Int64, y: Int64) {
        self.x = x
        self.y = y
    }
}

/// Decoded feature geometry in tile units. Rings are closed (first point repeated at the end).
public enum TileGeometry: Hashable, Sendable {
    /// `UNKNOWN` geometry, kept as raw commands only.
    case unknown
    case points([TilePoint])
    case lines([[TilePoint]])
    /// Polygons, each an exterior ring followed by its interior rings.
    case polygons([[[TilePoint]]])

    /// The shoelace area of a closed ring in tile units², positive for an exterior ring in
    /// MVT's y-down frame (MVT 2.1 §4.3.4.4: clockwise on screen).
    public static func signedArea(_ ring: [TilePoint]) -> Int64 {
        guard ring.count >= 4 else { return 0 }
        var twice: Int64 = 0
        for i in 0..<(ring.count - 1) { twice &+= shoelaceTerm(ring[i], ring[i + 1]) }
        return twice / 2 + (twice % 2 == 0 ? 0 : twice.signum())
    }

    /// Edge `a`→`b`'s term of the shoelace sum (twice a ring's area: the sum over its edges).
    @inline(__always) static func shoelaceTerm(_ a: TilePoint, _ b: TilePoint) -> Int64 { a.x &* b.y &- b.x &* a.y }
}

/// Why a feature's command integers do not decode.
struct GeometryFault: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// MVT 2.1 §4.3: command integers (`id & 0x7 | count << 3`) with zigzag parameters.
enum GeometryCommand {
    static let moveTo: UInt32 = 1, lineTo: UInt32 = 2, closePath: UInt32 = 7

    @inline(__always) static func command(_ id: UInt32, count: Int) -> UInt32 { id & 7 | UInt32(count) << 3 }
    @inline(__always) static func zigzag(_ v: Int64) -> UInt32 { UInt32(truncatingIfNeeded: (v << 1) ^ (v >> 63)) }
    @inline(__always) static func unzigzag(_ v: UInt32) -> Int64 { Int64(v >> 1) ^ -Int64(v & 1) }
}

extension VectorTileFeature {
    /// The geometry decoded by the rules of MVT 2.1 §4.3 (``FeatureScratch/decodeGeometry()``).
    func decodedGeometry() throws(GeometryFault) -> TileGeometry {
        var scratch = FeatureScratch()
        scratch.type = type
        scratch.commands = geometry
        try scratch.decodeGeometry()
        return scratch.withView(TileGeometry.init)
    }
}

extension TileGeometry {
    /// The geometry of a feature as a tile's decode hands it over.
    public init(_ f: VectorTileFeatureView) {
        func part(_ i: Int) -> [TilePoint] { Array(f.part(i)) }
        switch f.type {
        case .unknown: self = .unknown
        case .point: self = .points(Array(f.points))
        case .lineString: self = .lines((0..<f.partCount).map(part))
        case .polygon: self = .polygons((0..<f.polygonCount).map { f.rings(ofPolygon: $0).map(part) })
        }
    }
}

extension FeatureScratch {
    /// The command integers (`commands`, of geometry `type`) decoded by the rules of MVT 2.1
    /// §4.3 into `points`, `partEnds` and `polygonEnds`, for layers of either version (a
    /// version 1 line closed by ClosePath is rejected, as the MVT fixture 061 asks of 2.x readers).
    /// - Throws: a fault for an unknown command, a wrong command count, missing parameters,
    ///   a zero-length `LineTo`, a ClosePath in a line, an unclosed or too short ring, a
    ///   polygon starting with an interior ring.
    mutating func decodeGeometry() throws(GeometryFault) {
        points.removeAll(keepingCapacity: true)
        partEnds.removeAll(keepingCapacity: true)
        polygonEnds.removeAll(keepingCapacity: true)
        let g = commands
        var i = 0
        var x: Int64 = 0, y: Int64 = 0
        func params(_ count: Int) throws(GeometryFault) {
            guard count <= (g.count - i) / 2 else {
                throw GeometryFault("command count \(count) needs \(2 * count) parameters, \(g.count - i) left")
            }
        }
        @inline(__always) func next() -> TilePoint {
            x &+= GeometryCommand.unzigzag(g[i]); y &+= GeometryCommand.unzigzag(g[i + 1]); i += 2
            return TilePoint(x: x, y: y)
        }
        switch type {
        case .unknown:
            return
        case .point:
            guard !g.isEmpty else { throw GeometryFault("point geometry is empty") }
            // Every point takes two of the integers: at most half their count.
            points.reserveCapacity(g.count / 2)
            while i < g.count {
                let c = g[i]; i += 1
                let count = Int(c >> 3)
                guard c & 7 == GeometryCommand.moveTo else { throw GeometryFault("point geometry has command \(c & 7); only MoveTo is allowed") }
                guard count > 0 else { throw GeometryFault("MoveTo with count 0") }
                try params(count)
                for _ in 0..<count { points.append(next()) }
            }
            partEnds.append(points.count)
        case .lineString:
            while i < g.count {
                let c = g[i]; i += 1
                guard c & 7 == GeometryCommand.moveTo, c >> 3 == 1 else { throw GeometryFault("a line must start with MoveTo count 1, found command \(c & 7) count \(c >> 3)") }
                try params(1)
                let start = next()
                guard i < g.count, g[i] & 7 == GeometryCommand.lineTo else { throw GeometryFault("a line needs a LineTo after its MoveTo") }
                let l = g[i]; i += 1
                let count = Int(l >> 3)
                guard count > 0 else { throw GeometryFault("LineTo with count 0") }
                try params(count)
                points.append(start)
                for _ in 0..<count {
                    if g[i] == 0, g[i + 1] == 0 { throw GeometryFault("LineTo to the same position (MVT 2.1 §4.3.3.2)") }
                    points.append(next())
                }
                partEnds.append(points.count)
            }
            guard !partEnds.isEmpty else { throw GeometryFault("line geometry is empty") }
        case .polygon:
            while i < g.count {
                let c = g[i]; i += 1
                guard c & 7 == GeometryCommand.moveTo, c >> 3 == 1 else { throw GeometryFault("a ring must start with MoveTo count 1, found command \(c & 7) count \(c >> 3)") }
                try params(1)
                let start = next()
                guard i < g.count, g[i] & 7 == GeometryCommand.lineTo else { throw GeometryFault("a ring needs a LineTo after its MoveTo") }
                let l = g[i]; i += 1
                let count = Int(l >> 3)
                guard count >= 2 else { throw GeometryFault("ring LineTo with count \(count); a ring needs at least 2") }
                try params(count)
                // The start, the LineTo's points and the start again, closing it; twice its
                // area summed on the way (``TileGeometry/signedArea(_:)``'s sign).
                let first = points.count
                points.append(start)
                var twice: Int64 = 0, last = start
                for _ in 0..<count {
                    let p = next()
                    twice &+= TileGeometry.shoelaceTerm(last, p)
                    points.append(p)
                    last = p
                }
                guard i < g.count, g[i] & 7 == GeometryCommand.closePath else { throw GeometryFault("unclosed ring: no ClosePath after its LineTo") }
                guard g[i] >> 3 == 1 else { throw GeometryFault("ClosePath with count \(g[i] >> 3), must be 1") }
                i += 1
                points.append(start)
                twice &+= TileGeometry.shoelaceTerm(last, start)
                if twice > 0 {
                    partEnds.append(points.count)
                    polygonEnds.append(partEnds.count)
                } else if twice < 0 {
                    guard !polygonEnds.isEmpty else { throw GeometryFault("polygon starts with an interior (negative area) ring") }
                    partEnds.append(points.count)
                    polygonEnds[polygonEnds.count - 1] = partEnds.count
                } else {
                    // A zero-area ring is dropped (MVT 2.1 §4.3.4.4: SHOULD NOT occur).
                    points.removeSubrange(first...)
                }
            }
            guard !polygonEnds.isEmpty else { throw GeometryFault("polygon geometry has no ring with area") }
        }
    }
}

/// Builds command integers for MVT 2.1 §4.3 from tile-unit geometry: drops repeated points,
/// lines shorter than two points and rings with no area, and orients rings (exterior positive,
/// interior negative area).
struct GeometryEncoder {
    private(set) var commands: [UInt32] = []
    private var x: Int64 = 0, y: Int64 = 0

    mutating func reset() {
        commands.removeAll(keepingCapacity: true)
        x = 0; y = 0
    }

    private mutating func delta(_ p: TilePoint) {
        commands.append(GeometryCommand.zigzag(p.x - x))
        commands.append(GeometryCommand.zigzag(p.y - y))
        x = p.x; y = p.y
    }

    mutating func addPoints(_ points: [TilePoint]) {
        guard !points.isEmpty else { return }
        commands.append(GeometryCommand.command(GeometryCommand.moveTo, count: points.count))
        for p in points { delta(p) }
    }

    /// Appends a line; repeated points are dropped, a line of fewer than two distinct points is skipped.
    mutating func addLine(_ line: [TilePoint]) {
        var distinct = 0
        var last: TilePoint?
        for p in line where p != last { distinct += 1; last = p }
        guard distinct >= 2 else { return }
        last = nil
        var first = true
        for p in line where p != last {
            last = p
            if first {
                commands.append(GeometryCommand.command(GeometryCommand.moveTo, count: 1))
                delta(p)
                commands.append(GeometryCommand.command(GeometryCommand.lineTo, count: distinct - 1))
                first = false
            } else {
                delta(p)
            }
        }
    }

    /// Appends a closed ring oriented as `exterior` asks; skipped when it has no area.
    /// - Returns: whether the ring was written.
    @discardableResult
    mutating func addRing(_ ring: [TilePoint], exterior: Bool) -> Bool {
        var points: [TilePoint] = []
        points.reserveCapacity(ring.count)
        for p in ring where p != points.last { points.append(p) }
        if points.count > 1, points.first == points.last { points.removeLast() }
        guard points.count >= 3 else { return false }
        let area = TileGeometry.signedArea(points + [points[0]])
        guard area != 0 else { return false }
        if (area > 0) != exterior { points.reverse() }
        commands.append(GeometryCommand.command(GeometryCommand.moveTo, count: 1))
        delta(points[0])
        commands.append(GeometryCommand.command(GeometryCommand.lineTo, count: points.count - 1))
        for p in points.dropFirst() { delta(p) }
        commands.append(GeometryCommand.command(GeometryCommand.closePath, count: 1))
        return true
    }

    /// Appends polygons; holes of an exterior that was dropped are dropped too.
    mutating func addPolygons(_ polygons: [[[TilePoint]]]) {
        for polygon in polygons {
            guard let exterior = polygon.first, addRing(exterior, exterior: true) else { continue }
            for hole in polygon.dropFirst() { addRing(hole, exterior: false) }
        }
    }
}

extension TileGeometry {
    /// The command integers of this geometry, and its MVT type; empty commands when nothing
    /// drawable is left.
    func encoded() -> (type: VectorTileGeometryType, commands: [UInt32]) {
        var e = GeometryEncoder()
        switch self {
        case .unknown: return (.unknown, [])
        case .points(let ps): e.addPoints(ps); return (.point, e.commands)
        case .lines(let ls): for l in ls { e.addLine(l) }; return (.lineString, e.commands)
        case .polygons(let ps): e.addPolygons(ps); return (.polygon, e.commands)
        }
    }
}
