import Foundation
import GeoCore
import GeoTestSupport
import MapCamera
import MapData
import MapRenderer
@testable import MapView
import OSMImport
import Testing

/// Monaco's map features and Noto Sans from LOCATIONKIT_DATA and the system (nil, skip,
/// outside CI when absent), read once.
private let monaco: MapFeatureIndex? = {
    guard let url = try? Fixtures.url("osm/monaco.osm.pbf"), let extraction = try? MapDataExtraction.read(url: url) else { return nil }
    return MapFeatureIndex(extraction.features)
}()

private func notoSans() throws -> TextRenderer? {
    let path = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    guard FileManager.default.fileExists(atPath: path) else {
        if Fixtures.isCI { throw FixtureError.missing("\(path) (scripts/setup.sh installs fonts-noto-core)") }
        return nil
    }
    return try TextRenderer(faces: [FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), index: 0, name: path)])
}

private let centre = Coordinate(uncheckedLatitude: 43.73841, longitude: 7.42462)

/// A labelled view of Monaco, tilted as the benchmark's, with its first frame drawn.
/// `pois` false hides every POI (they show by default).
private func labelledView(zoom: Double = 16, tilt: Double = 45, orientation: Double = 0, pois: Bool = true) throws -> (TestView, ManualClock)? {
    guard let monaco, let text = try notoSans() else { return nil }
    let view = try TestView(camera: camera(centre, zoom: zoom, orientation: orientation, tilt: tilt, size: (640, 400)), features: monaco)
    view.text = text
    view.style.showsAllPOIs = pois
    let clock = ManualClock()
    #expect(view.render(at: clock.now))
    #expect(view.labelLayer.labels.count > 10, "Monaco at z\(zoom) has labels: \(view.labelLayer.labels.count)")
    return (view, clock)
}

/// The largest overlap, pixels, of two different labels' collision boxes on screen: for two
/// boxes, the smaller extent of their intersection (how far one must move to clear the other;
/// two boxes side by side that share 0.5 px across are 0.5 px deep, not their height).
private func deepestOverlap(_ labels: [[PlacedLabel.Box]]) -> Double {
    var deepest = 0.0
    for i in labels.indices {
        for j in labels.indices where j > i {
            for a in labels[i] {
                for b in labels[j] where a.intersects(b) {
                    deepest = max(deepest, min(min(a.maxX, b.maxX) - max(a.minX, b.minX), min(a.maxY, b.maxY) - max(a.minY, b.minY)))
                }
            }
        }
    }
    return deepest
}

@Test(.onOwnThread) func panningALittle_movesTheLabels_withoutPlacingThemAgain() throws {
    guard let (view, clock) = try labelledView() else { return }
    #expect(view.labelLayer.placements == 1)
    view.camera.beginGesture()
    for _ in 0..<4 {
        // 12 px a frame: 48 px in all, under the 64 px that places labels again.
        view.camera.apply(.pan(from: ScreenPoint(x: 320, y: 200), to: ScreenPoint(x: 308, y: 200)), at: clock.now)
        #expect(view.render(at: clock.now))
    }
    #expect(view.labelLayer.placements == 1, "a short pan moves the placed labels")
    for _ in 0..<3 { view.camera.apply(.pan(from: ScreenPoint(x: 320, y: 200), to: ScreenPoint(x: 308, y: 200)), at: clock.now); view.render(at: clock.now) }
    #expect(view.labelLayer.placements == 2, "past 64 px the labels are placed again")
}

@Test(.onOwnThread) func aSettledCamera_placesTheLabelsAgain_once() throws {
    guard let (view, clock) = try labelledView() else { return }
    view.camera.beginGesture()
    view.camera.apply(.pan(from: ScreenPoint(x: 320, y: 200), to: ScreenPoint(x: 300, y: 190)), at: clock.now)
    #expect(view.render(at: clock.now))
    #expect(view.labelLayer.placements == 1)
    #expect(view.render(at: clock.now), "the camera settled: the labels are placed for it")
    #expect(view.labelLayer.placements == 2)
    #expect(!view.render(at: clock.now), "then nothing changes")
}

/// A moved frame's labels are where a fresh placement for its camera draws them: the frame of
/// a view panned 40 px (labels moved, not placed again) against a new view's first frame at
/// the same camera (labels placed for it), over the same tiles.
@Test(.onOwnThread) func movedLabels_matchAFreshPlacement() throws {
    // Without POIs: the 2.5 % below was measured for street and place names and arrows; Monaco's
    // POI icons and names, shown by default since issue 33, make it 3.9 % (more symbols that a
    // placement over other ground keeps or drops).
    guard let (view, clock) = try labelledView(tilt: 30, pois: false) else { return }
    view.camera.beginGesture()
    view.camera.apply(.pan(from: ScreenPoint(x: 320, y: 200), to: ScreenPoint(x: 290, y: 173)), at: clock.now)
    #expect(view.render(at: clock.now))
    #expect(view.labelLayer.placements == 1)
    let moved = try #require(view.frame)
    let fresh = try TestView(camera: view.camera.state, features: try #require(monaco), style: view.style)
    fresh.text = view.text
    #expect(fresh.render(at: clock.now))
    // Differences: labels that a placement covering other ground keeps or drops, and the
    // labels' whole-pixel positions (±0.5 px); a label 1 px off already shows along its edges.
    // 2.5 %: one-way arrows are symbols of the label layer too, and street names are tried on
    // more spots of their lines, so more symbols are kept or dropped than the 2 % this had.
    var differing = 0
    let a = moved.bytes, b = try #require(fresh.frame).bytes
    for i in stride(from: 0, to: a.count, by: 4) where (0..<3).contains(where: { abs(Int(a[i + $0]) - Int(b[i + $0])) > 48 }) { differing += 1 }
    let fraction = Double(differing) / Double(moved.width * moved.height)
    #expect(fraction < 0.025, "\(fraction * 100) % of pixels differ by more than 48 levels")
}

/// Zooming out brings labels together; within the 1/16-zoom threshold they may overlap by a
/// few pixels (MapLibre's, too, overlap until its next placement), and every frame that placed
/// them anew has none.
@Test(.onOwnThread) func zoomingOut_placesAgain_andAPlacementHasNoOverlaps() throws {
    guard let (view, clock) = try labelledView(zoom: 17, tilt: 30, orientation: 20) else { return }
    var placements = view.labelLayer.placements, replaced = 0
    for i in 1...40 {
        try view.camera.set(CameraOptions(zoomLevel: 17 - 0.025 * Double(i)), animation: .none, at: clock.now)
        #expect(view.render(at: clock.now))
        let overlap = deepestOverlap(view.labelLayer.boxes(through: CameraProjection(view.camera.state)))
        if view.labelLayer.placements > placements {
            replaced += 1
            placements = view.labelLayer.placements
            #expect(overlap == 0, "a new placement overlaps by \(overlap) px")
        } else {
            #expect(overlap < 8, "between placements labels overlap by \(overlap) px")
        }
    }
    #expect(replaced >= 10 && replaced <= 20, "a zoom of one level places labels every 1/16 level: \(replaced) times")
}

/// Composing labels premultiplied over a frame: `src + dst·(255 − αsrc)/255` per channel,
/// rounded, swept over every source alpha and destination level (colour channels 0, α/2, α).
@Test func labelOver_isSourceOverOnPremultipliedBytes() {
    func bytes(_ p: UInt32) -> [Int] { (0..<4).map { Int((p >> (8 * $0)) & 0xFF) } }
    for a in 0...255 {
        let src = [0, a / 2, a, a]
        let s = UInt32(src[0]) | UInt32(src[1]) << 8 | UInt32(src[2]) << 16 | UInt32(src[3]) << 24
        for level in 0...255 {
            let dst = [level, 255 - level, level / 3, 255 - level / 2]
            let d = UInt32(dst[0]) | UInt32(dst[1]) << 8 | UInt32(dst[2]) << 16 | UInt32(dst[3]) << 24
            let expected = (0..<4).map { src[$0] + Int((Double(dst[$0] * (255 - a)) / 255).rounded()) }
            if bytes(LabelLayer.over(s, d)) != expected {
                Issue.record("α \(a), destination \(dst): \(bytes(LabelLayer.over(s, d))) ≠ \(expected)")
                return
            }
        }
    }
}
