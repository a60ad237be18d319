import GeoCore
import MapData
@testable import MapRenderer
import Testing

/// Street names on streets that OpenStreetMap cuts into short ways.
struct StreetNameTests {
    private func line(_ xs: [Double], y: Double = 0) -> [MapPoint] { xs.map { MapPoint(x: $0, y: y) } }

    /// MapLibre GL JS's own `mergeLines` case ("merges lines with the same text"): of the pieces
    /// of text "a" (0-1-2, 8-9, 2-3-4, 6-7-8, 5-6) it makes 0…4 and 5…9.
    @Test func merging_joinsPiecesEndToEnd_likeMapLibre() {
        let merged = LineMerging.merged([line([0, 1, 2]), line([8, 9]), line([2, 3, 4]), line([6, 7, 8]), line([5, 6])])
        #expect(merged == [line([0, 1, 2, 3, 4]), line([5, 6, 7, 8, 9])])
    }

    /// OSM ways of one street run either way: a piece drawn backwards joins too, and the
    /// joined line keeps the first piece's direction.
    @Test func merging_joinsPiecesRunningEitherWay() {
        let merged = LineMerging.merged([line([2, 1, 0]), line([2, 3]), line([5, 4, 3])])
        #expect(merged == [line([5, 4, 3, 2, 1, 0])])
    }

    /// Where a dual carriageway forks, the straightest continuation is taken (the branch that
    /// turns 45° stays apart); a piece that turns back by more than 60° is not joined.
    @Test func merging_takesTheStraightestContinuation_andNoSharpTurn() {
        let west = line([0, 1]), east = line([1, 2]), branch = [MapPoint(x: 1, y: 0), MapPoint(x: 2, y: 1)]
        #expect(LineMerging.merged([west, branch, east]) == [line([0, 1, 2]), branch])
        let back = [MapPoint(x: 1, y: 0), MapPoint(x: 0, y: 0.5)] // a 153° turn
        #expect(LineMerging.merged([west, back]) == [west, back])
    }

    /// "Boulevard Albert 1er" (about 110 px at 11 px) on a 400 px street along the middle of a
    /// 500 × 100 image at z16, in five OSM ways of 80 px, alternately drawn backwards: no
    /// piece is as long as the name, the street is. The name is placed once, and no placed
    /// label's box overlaps another's.
    @Test func streetInShortWays_isNamed_withoutOverlaps() throws {
        guard let faces = try notoFaces() else { return }
        let view = try MercatorViewport(center: Coordinate(uncheckedLatitude: 43.73, longitude: 7.42), zoom: 16, width: 500, height: 100)
        var features: [MapFeature] = []
        for i in 0..<5 {
            let a = view.world(at: Point(x: 50 + 80 * Double(i), y: 50)), b = view.world(at: Point(x: 130 + 80 * Double(i), y: 50))
            let name = [MapProperty("class", .string("primary")), MapProperty("name", .string("Boulevard Albert 1er"))]
            features.append(MapFeature(layer: .transportationName, id: Int64(i), source: .way, geometry: .lines([i % 2 == 0 ? [a, b] : [b, a]]), properties: name, minZoom: 0))
            // A place name above the street: it must not be overlapped.
            if i == 0 {
                features.append(MapFeature(layer: .place, id: 99, source: .node, geometry: .points([view.world(at: Point(x: 250, y: 30))]),
                                           properties: [MapProperty("class", .string("suburb")), MapProperty("name", .string("La Condamine"))], minZoom: 0))
            }
        }
        var painter = MapPainter(zoom: 16)
        painter.text = try TextRenderer(faces: faces)
        painter.drawsAttribution = false
        let placed = try painter.placedLabels(MapFeatureIndex(features), through: view, width: 500, height: 100)
        let names = placed.filter { $0.boxes.count > 1 }
        try #require(names.count == 1, "the street is named once: \(placed.map(\.anchor))")
        // On the street: its middle within 1 px of the line (y = 50), between its ends.
        #expect(abs(names[0].anchor.y - 50) < 1 && (50...450).contains(names[0].anchor.x), "\(names[0].anchor)")
        #expect(placed.count == 2, "the place name is placed too")
        for (i, a) in placed.enumerated() {
            for b in placed[(i + 1)...] {
                #expect(!a.boxes.contains { p in b.boxes.contains { p.intersects($0) } }, "labels at \(a.anchor) and \(b.anchor) overlap")
            }
        }

        // Each way on its own (not one street: a different name each) is too short to name.
        let apart = features.enumerated().map { i, f in
            guard f.layer == .transportationName, case .lines(let l) = f.geometry else { return f }
            return MapFeature(layer: .transportationName, id: f.id, source: .way, geometry: .lines(l),
                              properties: [MapProperty("class", .string("primary")), MapProperty("name", .string("Boulevard Albert \(i)er"))], minZoom: 0)
        }
        let alone = try painter.placedLabels(MapFeatureIndex(apart), through: view, width: 500, height: 100)
        #expect(alone.filter { $0.boxes.count > 1 }.isEmpty)
    }
}

/// Where an area's name goes.
struct AreaNameTests {
    /// A U-shaped lake (0…300 × 0…200, open at the top between x 100 and 200): its box's centre
    /// (150, 100) is on land, so the name goes in the middle of the widest stretch of water on
    /// the box's middle row: the left arm is 0…100 and the right 200…300, equally wide, so the
    /// first (50, 100).
    @Test func interiorPoint_isInsideAUShape() {
        let u = [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 150), Point(x: 200, y: 150), Point(x: 200, y: 0),
                 Point(x: 300, y: 0), Point(x: 300, y: 200), Point(x: 0, y: 200)]
        #expect(LabelPlacement.interiorPoint(of: u) == Point(x: 50, y: 100))
        // A rectangle: its centre.
        let box = [Point(x: 10, y: 20), Point(x: 110, y: 20), Point(x: 110, y: 80), Point(x: 10, y: 80)]
        #expect(LabelPlacement.interiorPoint(of: box) == Point(x: 60, y: 50))
    }
}
