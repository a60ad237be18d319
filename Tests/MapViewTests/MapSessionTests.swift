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
