import Foundation
import GeoCore
import GeoTestSupport
import MapCamera
import MapData
import MapRenderer
@testable import MapView
import OSMImport
import Testing

/// Monaco's map features from LOCATIONKIT_DATA (nil outside CI when absent), read once.
private let monaco: MapFeatureIndex? = {
    guard let url = try? Fixtures.url("osm/monaco.osm.pbf"), let extraction = try? MapDataExtraction.read(url: url) else { return nil }
    return MapFeatureIndex(extraction.features)
}()

private let monacoCentre = Coordinate(uncheckedLatitude: 43.73841, longitude: 7.42462)

/// How far apart two frames of one size are: the mean absolute difference over every colour
/// channel (levels of 255), and the fraction of pixels whose largest channel difference is
/// more than `levels`.
private func difference(_ a: Pixmap, _ b: Pixmap, beyond levels: Int = 32) -> (mean: Double, outliers: Double) {
    precondition(a.width == b.width && a.height == b.height)
    var total = 0, outliers = 0
    for i in stride(from: 0, to: a.bytes.count, by: 4) {
        var largest = 0
        for k in 0..<3 {
            let d = abs(Int(a.bytes[i + k]) - Int(b.bytes[i + k]))
            total += d
            largest = max(largest, d)
        }
        if largest > levels { outliers += 1 }
    }
    let pixels = Double(a.width * a.height)
    return (Double(total) / (pixels * 3), Double(outliers) / pixels)
}

/// A view of Monaco and the same frame composed from tiles and drawn directly.
private func composedAndDirect(_ state: CameraState) throws -> (composed: Pixmap, direct: Pixmap, view: TestView)? {
    guard let monaco else { return nil }
    let view = try TestView(camera: state, features: monaco)
    #expect(view.render(at: ManualClock().now))
    let composed = try #require(view.frame)
    #expect(view.cachedTileCount > 0, "a flat view composes its frame from tiles")
    return (composed, view.snapshot(), view)
}

// The tolerances, levels of 255 and fractions of pixels: the tiles are drawn at the integer
// tile zoom and resampled (bilinear), so every edge is softened by up to a pixel; tilted,
// lines and outlines also narrow with distance as the ground does (as in MapLibre), where the
// direct drawing keeps them a constant width on screen. A frame panned by three pixels is
// outside them (checked below), so they catch a misplaced ground.
private let untilted = (mean: 6.0, outliers: 0.08)
private let tilted = (mean: 12.0, outliers: 0.17)

@Test(.onOwnThread) func composedFrame_equalsDirectFrame_untilted() throws {
    guard let (composed, direct, _) = try composedAndDirect(camera(monacoCentre, zoom: 15.3, size: (480, 320))) else { return }
    let d = difference(composed, direct)
    #expect(d.mean < untilted.mean, "mean difference \(d.mean) levels")
    #expect(d.outliers < untilted.outliers, "\(d.outliers * 100) % of pixels differ by more than 32 levels")
}

@Test(.onOwnThread) func composedFrame_equalsDirectFrame_tiltedAndTurned() throws {
    guard let (composed, direct, _) = try composedAndDirect(camera(monacoCentre, zoom: 15, orientation: 30, tilt: 45, size: (480, 320))) else { return }
    let d = difference(composed, direct)
    #expect(d.mean < tilted.mean, "mean difference \(d.mean) levels")
    #expect(d.outliers < tilted.outliers, "\(d.outliers * 100) % of pixels differ by more than 32 levels")
}

@Test(.onOwnThread) func composedFrame_ofAnotherCamera_isOutsideTheTolerance() throws {
    let state = try camera(monacoCentre, zoom: 15, orientation: 30, tilt: 45, size: (480, 320))
    guard let (composed, _, view) = try composedAndDirect(state) else { return }
    let panned = state.applying(.pan(from: ScreenPoint(x: 240, y: 160), to: ScreenPoint(x: 243, y: 160)))
    try view.camera.set(CameraOptions(geoCenter: panned.geoCenter), animation: .none, at: ManualClock().now)
    let d = difference(composed, view.snapshot())
    #expect(d.mean > tilted.mean || d.outliers > tilted.outliers, "three pixels off must show: mean \(d.mean), outliers \(d.outliers)")
}

@Test(.onOwnThread) func tileCache_staysWithinItsCapacity_acrossALongPan() throws {
    guard let monaco else { return }
    let clock = ManualClock()
    let view = try TestView(camera: camera(monacoCentre, zoom: 16, tilt: 30, size: (400, 300)), features: monaco)
    view.tileCacheCapacity = 24
    view.camera.beginGesture()
    var most = 0
    for _ in 0..<40 {
        view.camera.apply(.pan(from: ScreenPoint(x: 200, y: 150), to: ScreenPoint(x: 140, y: 130)), at: clock.now)
        #expect(view.render(at: clock.now))
        most = max(most, view.cachedTileCount)
    }
    #expect(most == 24, "the pan crosses more tiles than the cache holds; it stays full, no fuller")
    let d = difference(try #require(view.frame), view.snapshot())
    #expect(d.mean < tilted.mean && d.outliers < tilted.outliers, "frames still composed right after evictions: mean \(d.mean), outliers \(d.outliers)")
}

@Test(.onOwnThread) func tooManyTilesForTheCache_drawsDirectly() throws {
    guard let monaco else { return }
    let view = try TestView(camera: camera(monacoCentre, zoom: 15, size: (480, 320)), features: monaco)
    view.tileCacheCapacity = 2
    #expect(view.render(at: ManualClock().now))
    #expect(view.cachedTileCount == 0)
    #expect(view.frame == view.snapshot(), "drawn directly, as the snapshot is")
}

@Test(.onOwnThread) func hidingALayer_orChangingTheStyle_redrawsTheTiles() throws {
    let state = try camera(monacoCentre, zoom: 16, size: (400, 300))
    guard let (before, _, view) = try composedAndDirect(state) else { return }
    view.style.hidden.insert(.buildings)
    #expect(view.cachedTileCount == 0, "tiles of the old visibility are dropped")
    #expect(view.render(at: ManualClock().now))
    let hidden = try #require(view.frame)
    let d = difference(hidden, view.snapshot())
    #expect(d.mean < untilted.mean && d.outliers < untilted.outliers, "the new tiles show the buildings hidden: mean \(d.mean), outliers \(d.outliers)")
    #expect(difference(hidden, before).mean > 1, "the frame changed")
    var style = view.style
    style.land = Color(hex: 0x303030)
    view.style = style
    #expect(view.cachedTileCount == 0)
    #expect(view.render(at: ManualClock().now))
    let dark = try #require(view.frame)
    #expect(difference(dark, hidden).mean > 20, "the land's colour changed in the tiles")
}

@Test(.onOwnThread) func globeBelowZoom12_isDrawnDirectly() throws {
    let view = try TestView(camera: camera(monacoCentre, zoom: 5, size: (320, 240), projection: .globe), features: MapFeatureIndex([]))
    #expect(view.render(at: ManualClock().now))
    #expect(view.cachedTileCount == 0)
    #expect(view.frame == view.snapshot())
}

/// Camera zooms 8.5–9 compose from tiles of zoom 10 (the renderer's 9.5–10 rounded) while the
/// world base is still drawn (below camera zoom 9): the tiles must show it as a direct frame
/// does, on both sides of 8.5 and of 9.
@Test(.onOwnThread, arguments: [8.3, 8.55, 8.75, 8.95, 9.05, 9.3])
func composedFrame_equalsDirectFrame_whereTheWorldBaseEnds(zoom: Double) throws {
    guard let monaco, let world = try worldBase() else { return }
    let view = try TestView(camera: camera(monacoCentre, zoom: zoom, size: (480, 320)), features: monaco, worldBase: world)
    #expect(view.render(at: ManualClock().now))
    #expect(view.cachedTileCount > 0, "a flat view composes its frame from tiles")
    let d = difference(try #require(view.frame), view.snapshot())
    #expect(d.mean < untilted.mean, "zoom \(zoom): mean difference \(d.mean) levels")
    #expect(d.outliers < untilted.outliers, "zoom \(zoom): \(d.outliers * 100) % of pixels differ by more than 32 levels")
}

/// Crossing a tile zoom (camera zoom 15.5: renderer zoom 16.5) draws at most
/// `tilesDrawnPerFrame` new tiles per frame while the old zoom's tiles stand in for the rest;
/// the view keeps drawing frames until every tile of the new zoom is there, and each frame
/// on the way stays within the tolerance of a direct frame.
@Test(.onOwnThread) func crossingATileZoom_drawsTheNewTilesAFewPerFrame() throws {
    guard let monaco else { return }
    let clock = ManualClock()
    let view = try TestView(camera: camera(monacoCentre, zoom: 15.45, tilt: 30, size: (480, 320)), features: monaco)
    #expect(view.render(at: clock.now))
    let before = view.cachedTileCount
    try view.camera.set(CameraOptions(zoomLevel: 15.55), animation: .none, at: clock.now)
    var frames = 0, counts = [before]
    while view.render(at: clock.now) {
        frames += 1
        counts.append(view.cachedTileCount)
        let d = difference(try #require(view.frame), view.snapshot())
        #expect(d.mean < tilted.mean && d.outliers < tilted.outliers, "frame \(frames) on the way: mean \(d.mean), outliers \(d.outliers)")
        if frames > 100 { break }
    }
    let added = zip(counts, counts.dropFirst()).map { $1 - $0 }
    #expect(added.allSatisfy { $0 <= view.tilesDrawnPerFrame }, "new tiles per frame \(added)")
    #expect(frames > 2 && frames < 100, "the new zoom's tiles arrive over \(frames) frames")
    #expect(!view.render(at: clock.now), "all drawn: nothing more to draw")
}

/// Tiles still pending when the view turns to the globe below zoom 12 (drawn directly) are
/// pending no more: the view draws one frame and then stops.
@Test(.onOwnThread) func pendingTiles_endWhenFramesAreDrawnDirectly() throws {
    guard let monaco else { return }
    let clock = ManualClock()
    let view = try TestView(camera: camera(monacoCentre, zoom: 15.45, size: (480, 320)), features: monaco)
    #expect(view.render(at: clock.now))
    try view.camera.set(CameraOptions(zoomLevel: 15.55), animation: .none, at: clock.now)
    #expect(view.render(at: clock.now))
    view.camera.setProjection(.globe)
    try view.camera.set(CameraOptions(zoomLevel: 5), animation: .none, at: clock.now)
    #expect(view.render(at: clock.now))
    #expect(!view.render(at: clock.now), "nothing pending on the globe")
}
