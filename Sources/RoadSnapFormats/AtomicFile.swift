import Foundation
import RoadSnapCore

/// Writes files atomically: into a temporary file beside the target, then renamed over it, so readers never see
/// a half-written output.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String) throws(RoadSnapError) {
        try write(Data(bytes), to: path)
    }

    public static func write(_ text: String, to path: String) throws(RoadSnapError) {
        try write(Data(text.utf8), to: path)
    }

    public static func write(_ data: Data, to path: String) throws(RoadSnapError) {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent()
        let temp = dir.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try data.write(to: temp)
            if rename(temp.path, url.path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temp)
                throw RoadSnapError.unreadableFile(path: path, reason: "cannot write output: \(reason)")
            }
        } catch let error as RoadSnapError {
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temp)
            throw .unreadableFile(path: path, reason: "cannot write output: \(error.localizedDescription)")
        }
    }
}
