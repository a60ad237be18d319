import GeoCore
import HummingbirdWebSocket
import NIOWebSocket
import GeoBase

/// Refuses a client's data frame that is not masked: "a server MUST close the connection upon
/// receiving a frame that is not masked" (RFC 6455 §5.1). Masking is what keeps a page's
/// WebSocket bytes from being read as another protocol by proxies on the way (§10.3).
///
/// Installed as an extension applied without negotiation, the one hook hummingbird-websocket
/// gives on the frames as they arrived (its handler strips the mask before the route sees
/// them). Extensions see data frames (text, binary, continuation); control frames (ping, close)
/// carry no payload of the page's and are answered by the library.
struct MaskedFramesOnly: WebSocketExtension {
    var name: String { "masked-frames-only" }

    func processReceivedFrame(_ frame: WebSocketFrame, context: WebSocketExtensionContext) throws -> WebSocketFrame {
        guard frame.maskKey != nil else {
            throw HTTPServingError(.unmaskedFrame, "a client sent a \(frame.opcode) frame without a mask (RFC 6455 §5.1)")
        }
        return frame
    }

    func processFrameToSend(_ frame: WebSocketFrame, context: WebSocketExtensionContext) -> WebSocketFrame { frame }

    func shutdown() async {}
}
