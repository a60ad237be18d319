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
        for i in 0..<(ring.count - 1) {
            twice &+= ring[i].x &* ring[i + 1].y &- ring[i + 1].x &* ring[i].y
        }
        return twice / 2 + (twice % 2 == 0 ? 0 : twice.signum())
    }
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
    /// The geometry decoded by the rules of MVT 2.1 §4.3, for layers of either version (a
    /// version 1 line closed by ClosePath is rejected, as the MVT fixture 061 asks of 2.x readers).
    /// - Throws: a fault for an unknown command, a wrong command count, missing parameters,
    ///   a zero-length `LineTo`, a ClosePath in a line, an unclosed or too short ring, a
    ///   polygon starting with an interior ring.
    func decodedGeometry() throws(GeometryFault) -> TileGeometry {
        let g = geometry
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
            return .unknown
        case .point:
            var points: [TilePoint] = []
            guard !g.isEmpty else { throw GeometryFault("point geometry is empty") }
            // Every point takes two of the integers: at most half their count, allocated once.
            points.reserveCapacity(g.count / 2)
            while i < g.count {
                let c = g[i]; i += 1
                let count = Int(c >> 3)
                guard c & 7 == GeometryCommand.moveTo else { throw GeometryFault("point geometry has command \(c & 7); only MoveTo is allowed") }
                guard count > 0 else { throw GeometryFault("MoveTo with count 0") }
                try params(count)
                for _ in 0..<count { points.append(next()) }
            }
            return .points(points)
        case .lineString:
            var lines: [[TilePoint]] = []
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
                var line: [TilePoint] = []
                line.reserveCapacity(count + 1)
                line.append(start)
                for _ in 0..<count {
                    if g[i] == 0, g[i + 1] == 0 { throw GeometryFault("LineTo to the same position (MVT 2.1 §4.3.3.2)") }
                    line.append(next())
                }
                lines.append(line)
            }
            guard !lines.isEmpty else { throw GeometryFault("line geometry is empty") }
            return .lines(lines)
        case .polygon:
            var polygons: [[[TilePoint]]] = []
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
                // The start, the LineTo's points and the start again, closing it.
                var ring: [TilePoint] = []
                ring.reserveCapacity(count + 2)
                ring.append(start)
                for _ in 0..<count { ring.append(next()) }
                guard i < g.count, g[i] & 7 == GeometryCommand.closePath else { throw GeometryFault("unclosed ring: no ClosePath after its LineTo") }
                guard g[i] >> 3 == 1 else { throw GeometryFault("ClosePath with count \(g[i] >> 3), must be 1") }
                i += 1
                ring.append(ring[0])
                let area = TileGeometry.signedArea(ring)
                if area > 0 {
                    polygons.append([ring])
                } else if area < 0 {
                    guard !polygons.isEmpty else { throw GeometryFault("polygon starts with an interior (negative area) ring") }
                    polygons[polygons.count - 1].append(ring)
                }
                // A zero-area ring is dropped (MVT 2.1 §4.3.4.4: SHOULD NOT occur).
            }
            guard !polygons.isEmpty else { throw GeometryFault("polygon geometry has no ring with area") }
            return .polygons(polygons)
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
