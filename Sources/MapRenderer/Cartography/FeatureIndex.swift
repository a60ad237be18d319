public import MapData

/// Map features with a grid over the world, to find those near a view without visiting every
/// feature: each feature is listed in the cells its bounding box touches (2^16 × 2^16 cells,
/// ≈ 600 m at the equator); features spanning more than 1024 cells sit in one list that every
/// query returns. Boxes are computed once, here.
public struct MapFeatureIndex: Sendable {
    /// The features given, with each street's name pieces joined into one feature
    /// (`joiningStreetNames`).
    public let features: [MapFeature]
    private let boxes: [WorldRect]
    private let cells: [Int: [Int32]]
    private let everywhere: [Int32]
    /// Per feature, the world rectangle its polygon outlines are stroked inside; empty when
    /// every outline is stroked whole.
    let outlineBounds: [WorldRect?]
    private static let level = 16

    /// - Parameter outlineBounds: for features decoded from vector tiles, one rectangle per
    ///   feature (nil: no limit): the tile it came from without the tile's buffer. A polygon
    ///   clipped to the buffered tile has edges along the cut, and each neighbouring tile holds
    ///   its own copy of the polygon; stroking each copy's outline only inside its own tile
    ///   draws every real edge once and no cut edge. Empty (the default): outlines are whole.
    /// - Complexity: O(features × cells each touches).
    public init(_ features: [MapFeature], outlineBounds: [WorldRect?] = []) {
        precondition(outlineBounds.isEmpty || outlineBounds.count == features.count, "Broken contract: one outline rectangle per feature, or none")
        let (features, outlineBounds) = Self.joiningStreetNames(features, outlineBounds)
        self.features = features
        self.outlineBounds = outlineBounds
        var cells: [Int: [Int32]] = [:]
        var everywhere: [Int32] = []
        var boxes: [WorldRect] = []
        boxes.reserveCapacity(features.count)
        let n = Double(1 << Self.level)
        for (i, f) in features.enumerated() {
            guard let b = f.geometry.bounds else {
                boxes.append(.empty)
                continue
            }
            boxes.append(b)
            let x0 = Self.cell(b.minX * n), x1 = Self.cell(b.maxX * n), y0 = Self.cell(b.minY * n), y1 = Self.cell(b.maxY * n)
            if (x1 - x0 + 1) * (y1 - y0 + 1) > 1024 {
                everywhere.append(Int32(i))
                continue
            }
            for y in y0...y1 { for x in x0...x1 { cells[y << Self.level | x, default: []].append(Int32(i)) } }
        }
        self.cells = cells
        self.everywhere = everywhere
        self.boxes = boxes
        _checkInvariants()
    }

    /// The features of vector tiles, each polygon's outline stroked only inside the tile it came
    /// from (`outlineBounds`: no outline along the tiles' cut lines).
    public init(tiles: [(tile: WorldRect, features: [MapFeature])]) {
        self.init(tiles.flatMap(\.features), outlineBounds: tiles.flatMap { repeatElement($0.tile, count: $0.features.count) })
    }

    /// The features of the vector tiles `view` shows (all the world's when its corners leave the
    /// map), read at the view's zoom and indexed tile by tile (`init(tiles:)`): what a snapshot
    /// or a raster tile drawn from a tile archive shows.
    /// - Throws: the source's error when a tile cannot be read (`TiledMapFeatures.featuresByTile`).
    public init(_ source: TiledMapFeatures, visibleIn view: MercatorViewport) throws {
        self.init(tiles: try source.featuresByTile(in: view.visibleWorldBounds ?? .world, zoom: view.zoom))
    }

    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant, unless there is one box per feature (and one
    /// outline rectangle, or none), every feature whose box spans more than 1024 cells is in
    /// the everywhere list and every other one with a box is listed, once, in exactly the
    /// cells its box touches, in feature order (swift-collections' `_checkInvariants()`
    /// pattern; `GEO_INTERNAL_CHECKS=1` compiles it in and every init runs it).
    /// - Complexity: O(listed entries + features).
    @inline(never)
    package func _checkInvariants() {
        precondition(boxes.count == features.count, "MapFeatureIndex: \(boxes.count) boxes for \(features.count) features")
        precondition(outlineBounds.isEmpty || outlineBounds.count == features.count,
                     "MapFeatureIndex: \(outlineBounds.count) outline rectangles for \(features.count) features")
        let n = Double(1 << Self.level)
        func cellRange(_ i: Int) -> (x0: Int, x1: Int, y0: Int, y1: Int)? {
            let b = boxes[i]
            guard b.minX <= b.maxX, b.minY <= b.maxY else { return nil } // no geometry: meets no view
            return (Self.cell(b.minX * n), Self.cell(b.maxX * n), Self.cell(b.minY * n), Self.cell(b.maxY * n))
        }
        var inEverywhere = Set<Int32>()
        for (k, i) in everywhere.enumerated() {
            precondition(k == 0 || everywhere[k - 1] < i, "MapFeatureIndex: the everywhere list is not in feature order at \(k)")
            guard let r = cellRange(Int(i)) else { preconditionFailure("MapFeatureIndex: feature \(i) has no box but is everywhere") }
            precondition((r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1) > 1024, "MapFeatureIndex: feature \(i) is everywhere but spans few cells")
            inEverywhere.insert(i)
        }
        var expected = 0
        for i in features.indices where !inEverywhere.contains(Int32(i)) {
            guard let r = cellRange(i) else { continue }
            let count = (r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1)
            precondition(count <= 1024, "MapFeatureIndex: feature \(i) spans \(count) cells but is not everywhere")
            expected += count
        }
        var listed = 0
        for (key, list) in cells {
            let x = key & ((1 << Self.level) - 1), y = key >> Self.level
            for (k, i) in list.enumerated() {
                precondition(k == 0 || list[k - 1] < i, "MapFeatureIndex: cell \(key) is not in feature order (or lists \(i) twice)")
                precondition(Int(i) < features.count && !inEverywhere.contains(i), "MapFeatureIndex: cell \(key) lists \(i)")
                guard let r = cellRange(Int(i)), (r.x0...r.x1).contains(x), (r.y0...r.y1).contains(y) else {
                    preconditionFailure("MapFeatureIndex: cell \(key) lists feature \(i), whose box does not touch it")
                }
            }
            listed += list.count
        }
        // Every entry lies in its feature's range and none repeats, so equal counts mean every
        // cell of every range is listed.
        precondition(listed == expected, "MapFeatureIndex: \(listed) cell entries, \(expected) expected")
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the index's invariants.
    @inline(__always)
    package func _checkInvariants() {}
    #endif

    /// The `transportationName` features with the same properties and zoom (the OSM ways of one
    /// street) as one feature, at the first one's place, its lines joined end to end
    /// (`LineMerging`): OSM cuts a street into ways often shorter than its name, and a name is
    /// placed along the whole street, at the same spots in every frame of a moving view. Every
    /// other feature as given. Outline rectangles follow their features (a joined one keeps its
    /// first piece's: lines have no outline).
    /// - Complexity: O(features + street-name points).
    static func joiningStreetNames(_ features: [MapFeature], _ outlineBounds: [WorldRect?])
        -> ([MapFeature], [WorldRect?]) {
        struct Street: Hashable { var properties: [MapProperty], minZoom: Int }
        var pieces: [Street: [Int]] = [:]
        for (i, f) in features.enumerated() where f.layer == .transportationName {
            if case .lines = f.geometry { pieces[Street(properties: f.properties, minZoom: f.minZoom), default: []].append(i) }
        }
        guard pieces.values.contains(where: { $0.count > 1 }) else { return (features, outlineBounds) }
        var joined: [Int: MapFeature] = [:], absorbed = Set<Int>()
        for list in pieces.values where list.count > 1 {
            let lines = list.flatMap { i -> [[MapPoint]] in
                guard case .lines(let l) = features[i].geometry else { return [] }
                return l
            }
            var street = features[list[0]]
            street.geometry = .lines(LineMerging.merged(lines))
            joined[list[0]] = street
            absorbed.formUnion(list.dropFirst())
        }
        var outFeatures: [MapFeature] = [], outBounds: [WorldRect?] = []
        outFeatures.reserveCapacity(features.count - absorbed.count)
        for i in features.indices where !absorbed.contains(i) {
            outFeatures.append(joined[i] ?? features[i])
            if !outlineBounds.isEmpty { outBounds.append(outlineBounds[i]) }
        }
        return (outFeatures, outBounds)
    }

    private static func cell(_ v: Double) -> Int { Int(min(max(v, 0), Double((1 << level) - 1))) }

    /// The features whose boxes meet the world rectangle, in their original order.
    /// - Complexity: O(cells in the rectangle + features found · log).
    public func features(in bounds: WorldRect?) -> [MapFeature] {
        features(in: bounds, marking: nil).map(\.feature)
    }

    /// The features whose boxes meet `bounds`, in their original order, each with whether its
    /// box also meets `inner` (true for all when `inner` is nil): a painter draws the geometry
    /// of those near the image and places labels of all.
    /// - Complexity: O(cells in the rectangle + features found · log).
    public func features(in bounds: WorldRect?,
                         marking inner: WorldRect?) -> [(feature: MapFeature, meetsInner: Bool)] {
        var out: [(feature: MapFeature, meetsInner: Bool)] = []
        forEachFeature(in: bounds, marking: inner) { i, near in out.append((features[i], near)) }
        return out
    }

    /// Calls `body` with the position in `features` of each feature whose box meets `bounds`,
    /// in order, and whether its box meets `inner`: the painter picks what it needs without
    /// copying every feature found.
    /// - Complexity: O(cells in the rectangle + features found · log).
    func forEachFeature(in bounds: WorldRect?,
                        marking inner: WorldRect?, _ body: (Int, Bool) -> Void) {
        func meets(_ fb: WorldRect, _ b: WorldRect?) -> Bool { b.map(fb.intersects) ?? true }
        guard let b = bounds else {
            for i in features.indices { body(i, meets(boxes[i], inner)) }
            return
        }
        let n = Double(1 << Self.level)
        let x0 = Self.cell(b.minX * n), x1 = Self.cell(b.maxX * n), y0 = Self.cell(b.minY * n), y1 = Self.cell(b.maxY * n)
        var found = everywhere
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 4 * cells.count {
            // A view larger than the data: every listed feature.
            for list in cells.values { found += list }
        } else {
            for y in y0...y1 { for x in x0...x1 { if let list = cells[y << Self.level | x] { found += list } } }
        }
        found.sort()
        var last: Int32 = -1
        for i in found where i != last {
            last = i
            let fb = boxes[Int(i)]
            if meets(fb, b) { body(Int(i), meets(fb, inner)) }
        }
    }
}
