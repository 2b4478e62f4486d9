import RoadSnapCore
import RoadSnapFormats

/// `roadsnap icons`: every maneuver icon and a set of lane images as PNG files.
enum IconsCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.icons)
        let dir = try opts.require("out")
        let size = try opts.double("size", default: 96)
        let scale = try opts.double("scale", default: 1)
        let style: ManeuverIconStyle
        switch opts.string("style") ?? "light" {
        case "light": style = .light
        case "dark": style = .dark
        case let other: throw RoadSnapError.invalidArgument("--style expects light or dark, got '\(other)'")
        }
        guard let side = DrivingSide(rawValue: opts.string("driving-side") ?? "right"), side != .none else {
            throw RoadSnapError.invalidArgument("--driving-side expects right or left")
        }
        let names = try IconSetOutput.write(to: dir, size: size, scale: scale, style: style, side: side)
        writeStderr("wrote \(names.count) images (\(Maneuver.allCases.count) maneuvers, "
            + "\(ManeuverIcons.sampleLaneSets.count) lane sets) into \(dir)\n")
        return 0
    }
}
