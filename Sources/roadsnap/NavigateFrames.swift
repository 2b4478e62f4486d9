import RoadSnapCore
import RoadSnapFormats

/// `navigate --frames DIR [--frame-size WxH] [--frame-every SECONDS] [--style light|dark]`: head-unit frames as
/// PNG files written during the run (HeadUnitFrameRecorder).
enum NavigateFrames {
    /// The recorder the flags ask for, added to the session's listeners (nil without --frames). The caller keeps
    /// it alive (listeners are held weakly) and calls `finish` after the run.
    static func start(_ opts: Options, network: RoadNetwork, session: NavigationSession) throws
        -> HeadUnitFrameRecorder?
    {
        guard let dir = opts.string("frames") else {
            for flag in ["frame-size", "frame-every"] where opts.string(flag) != nil {
                throw RoadSnapError.invalidArgument("--\(flag) needs --frames DIR")
            }
            return nil
        }
        let size = try PictureOutput.size(opts.string("frame-size") ?? "800x480", flag: "frame-size")
        let every = try opts.double("frame-every", default: 1)
        // water and buildings under the roads, where the map file has them (OSM files; none in GeoJSON or .rsmap)
        let areas = try MapAreas.load(path: try opts.require("map"))
        let recorder = try HeadUnitFrameRecorder(network: network, directory: dir, width: size.width,
                                                 height: size.height, every: every, areas: areas)
        session.navigator.add(recorder)
        session.roadSnappedLocationProvider.add(recorder)
        return recorder
    }

    /// Fails with the error that stopped the recording; else reports the frames written on stderr.
    static func finish(_ recorder: HeadUnitFrameRecorder?) throws {
        guard let recorder else { return }
        if let error = recorder.error { throw error }
        writeStderr("roadsnap navigate: \(recorder.count) frames in \(recorder.directory)\n")
    }
}
