import Foundation
import GeoCore
import GeoTestSupport
import MapCamera
import MapData
@testable import MapLivePage
import MapRenderer
import MapView
import Testing

@Test(.onOwnThread) func session_gesturesMoveTheCamera_badMessagesAreErrors() async throws {
    let view = try MapSession.View(camera: camera(size: (400, 300)), features: MapFeatureIndex([]))
    let session = MapSession(view: view)
    let before = await session.status()
    #expect(await session.handle(#"{"type":"pan","x":200,"y":150,"x2":260,"y2":150}"#, connection: 1) == nil)
    #expect(await session.status() != before)
    #expect(await session.handle("not json", connection: 1) != nil)
    #expect(await session.handle(#"{"type":"zoom","x":1,"y":1,"scale":-2}"#, connection: 1) != nil)
    #expect(await session.handle(#"{"type":"pan","x":1e400,"y":1,"x2":3,"y2":4}"#, connection: 1) != nil)
    #expect(await session.handle(#"{"type":"launch"}"#, connection: 1) != nil)
    #expect(await session.handle(#"{"type":"fly","query":"nowhere at all"}"#, connection: 1) != nil)
    #expect(await session.handle(#"{"type":"fly","query":"35.68,139.76,12"}"#, connection: 1) == nil)
    #expect(await session.handle(#"{"type":"projection","value":"globe"}"#, connection: 1) == nil)
    #expect(await session.status().contains(#""projection":"globe""#))
    #expect(await session.handle(#"{"type":"layer","value":"buildings","visible":false}"#, connection: 1) == nil)
    let png = await session.png()
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
}

/// A page that goes away mid-gesture ends its gesture: the camera is not left gesturing.
@Test(.onOwnThread) func session_disconnectMidGesture_endsTheGesture() async throws {
    let view = try MapSession.View(camera: camera(size: (400, 300)), features: MapFeatureIndex([]))
    let session = MapSession(view: view)
    #expect(await session.handle(#"{"type":"begin"}"#, connection: 7) == nil)
    #expect(await session.handle(#"{"type":"pan","x":200,"y":150,"x2":210,"y2":150}"#, connection: 7) == nil)
    #expect(await session.isGestureActive)
    await session.disconnected(7)
    #expect(await !session.isGestureActive)
}

/// A tile archive's stand-in: the sample city's features, and the regions and zooms asked for.
private final class RecordingSource: MapFeatureSource, @unchecked Sendable {
    let features: [MapFeature]
    var requests: [(bounds: WorldRect, zoom: Double)] = []
    init(_ features: [MapFeature]) { self.features = features }
    func features(in bounds: WorldRect, zoom: Double) throws -> [MapFeature] {
        requests.append((bounds, zoom))
        return features.filter { $0.geometry.bounds?.intersects(bounds) ?? false }
    }
}

/// With a tile archive the session loads the features of the region the view shows, again
/// only when a pan leaves it or the tile zoom changes.
@Test(.onOwnThread) func session_withASource_loadsTheRegionInView_asTheViewMoves() async throws {
    let source = RecordingSource(try sampleCityIndex().features)
    let view = try MapSession.View(camera: camera(zoom: 15, size: (400, 300)), features: MapFeatureIndex([]))
    let session = MapSession(view: view, source: source)
    _ = await session.png()
    #expect(source.requests.count == 1 && source.requests.first?.zoom == 16, "the renderer's tile zoom of a z15 camera")
    let seen = try #require(CameraProjection(camera(zoom: 15, size: (400, 300))).visibleWorldBounds)
    let first = try #require(source.requests.first?.bounds)
    #expect(first.minX < seen.minX && first.maxX > seen.maxX && first.minY < seen.minY && first.maxY > seen.maxY, "a margin round the view")
    #expect(await session.handle(#"{"type":"pan","x":200,"y":150,"x2":220,"y2":150}"#, connection: 1) == nil)
    _ = await session.png()
    #expect(source.requests.count == 1, "a small pan stays in the region loaded")
    for _ in 0..<6 { #expect(await session.handle(#"{"type":"pan","x":390,"y":150,"x2":10,"y2":150}"#, connection: 1) == nil) }
    _ = await session.png()
    #expect(source.requests.count == 2, "a long pan loads the new region")
    #expect(await session.handle(#"{"type":"doubletap","x":200,"y":150}"#, connection: 1) == nil)
    _ = await session.png()
    #expect(source.requests.count == 3 && source.requests.last?.zoom == 17, "a zoom level in: the next tile zoom")
}

/// Records the taps a view's delegate hears.
final class TapRecorder: MapViewDelegate, @unchecked Sendable {
    var taps: [(point: ScreenPoint, objects: Int)] = []
    func mapView<Instant: InstantProtocol>(_ mapView: MapView<Instant>, didTapAt point: ScreenPoint, picked: MapPickResult) where Instant.Duration == Duration {
        taps.append((point, picked.objects.count))
    }
}

/// A tap on the page is the view's tap: its delegate hears it with what was picked, and the
/// status names the top-most items (the line across the middle first); a tap with no point is
/// an error and leaves the status alone.
@Test(.onOwnThread) func session_pageTap_isTheViewsTap_andTheStatusNamesWhatWasPicked() async throws {
    let state = try camera(size: (400, 300))
    let view = try MapSession.View(camera: state, features: try sampleCityIndex())
    let west = try #require(state.coordinate(at: ScreenPoint(x: 50, y: 150))), east = try #require(state.coordinate(at: ScreenPoint(x: 350, y: 150)))
    _ = view.add(.polyline(MapPolyline([west, east], width: 6)))
    let recorder = TapRecorder()
    view.delegate = recorder
    let session = MapSession(view: view)
    #expect(await !session.status().contains("tapped"))
    #expect(await session.handle(#"{"type":"tap","x":200}"#, connection: 1) == "tap needs x, y")
    #expect(await session.handle(#"{"type":"tap","x":200,"y":151}"#, connection: 1) == nil)
    #expect(recorder.taps.count == 1 && recorder.taps.first?.point == ScreenPoint(x: 200, y: 151) && recorder.taps.first?.objects == 1)
    #expect(await session.status().contains(#""tapped":["polyline""#))
}
