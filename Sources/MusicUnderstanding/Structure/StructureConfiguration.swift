import Foundation

extension StructureAnalyzer {
    /// Settings of the structure analysis.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Half-width `L` in bars of the checkerboard kernel for sections (the kernel spans
        /// `2L` bars); 4 bars = one typical phrase on each side of the candidate boundary.
        public var sectionKernelBars: Int = 4
        /// Half-width in bars of the kernel for segments.
        public var segmentKernelBars: Int = 2
        /// Shortest section in bars (non-maximum suppression distance of section peaks).
        public var minimumSectionBars: Int = 4
        /// Shortest segment in bars.
        public var minimumSegmentBars: Int = 2
        /// A section boundary needs a combined novelty (each part scaled to a maximum of 1) of
        /// at least this much.
        public var sectionThreshold: Double = 0.15
        /// A section boundary's novelty must also exceed the mean novelty of the bar lines
        /// within two phrases of it by this much (novelty scaled to a maximum of 1).
        public var sectionProminence: Double = 0.1
        /// Sections last this long on average at least: at most `duration / this` sections are
        /// kept (the strongest boundaries), so fast bar grids or busy music are not cut into
        /// phrase-sized sections.
        public var minimumMeanSectionSeconds: Double = 10
        /// A segment boundary needs a novelty of at least this many median bar distances.
        public var segmentThreshold: Double = 0.2
        /// Bars per phrase (phrases group this many bars from each segment's start).
        public var phraseBars: Int = 4
        /// Segments longer than this many bars are split into `phraseBars * 2`-bar groups.
        public var maximumSegmentBars: Int = 8
        /// Two sections share a label when their mean aligned bar distance is below this
        /// many median bar distances.
        public var labelThreshold: Double = 0.8
        /// How far back (bars) a section looks for earlier material with the same label;
        /// bounds the labelling cost for long mixes.
        public var labelWindowBars: Int = 512
        /// A hypermetric (phrase-grid) phase is trusted when its bar lines carry this many times
        /// the mean novelty of the other phases.
        public var hypermeterEvidence: Double = 1.3
        /// Factor on the novelty of bar lines off a trusted phrase grid.
        public var offGridWeight: Double = 0.3
        /// The smallest novelty maximum (in median bar distances) that counts as the strongest
        /// change of the piece; below it, novelties are scaled by this value instead.
        public var minimumNovelty: Double = 0.5
        /// Weight of the repetition novelty against the checkerboard (homogeneity) novelty in
        /// the section novelty (both scaled to a maximum of 1).
        public var repetitionWeight: Double = 0.7
        /// Weight of the timbre (MFCC) part of the bar distance against the chroma part.
        public var timbreWeight: Float = 1
        /// Weight of the energy and onset-density parts of the bar distance.
        public var dynamicsWeight: Float = 0.5
        /// Where section boundaries come from: structural features on beat-synchronous chroma
        /// and MFCCs (Serrà et al. 2014; the default), or the bar-level novelty above.
        public var sectionMethod: SectionMethod = .structuralFeatures
        /// Without a beat grid, the analysis works on a time grid: units of this many seconds
        /// stand for bars (and a quarter of it for beats).
        public var pulselessUnitSeconds: Double = 2
        /// A structural-feature boundary within this many seconds of a bar line starts its section
        /// on the bar line; farther away it starts the section where it is (on its beat).
        public var boundarySnapSeconds: Double = 2
        /// A structural-feature boundary needs at least this checkerboard novelty (bar distance
        /// units, unscaled) at its bar line: below it nothing changes there (a steady sound).
        public var minimumBoundaryChange: Double = 0.002
        /// A bar-novelty peak (steps 2-3, scaled to a maximum of 1) at least this high is a
        /// section boundary beside the structural-feature ones.
        public var strongNovelty: Double = 0.8
        /// When the bar novelty's peaks average at least this many times its mean, they are the
        /// sections (clear changes of texture), not the structural features' boundaries (default
        /// 2.5 since 0.8.11, 2.4 before).
        public var homogeneityClarity: Double = 2.5
        /// Longest unit of the structural features, seconds: beats longer than this are halved
        /// (up to three times) before the features are averaged over them, so that the features'
        /// settings, counted in units (MSAF's, set for beat-synchronous frames), span the same time
        /// whatever metrical level the beats are reported at (default 0.6 s, 100 BPM;
        /// docs/analyses/structure.md).
        public var maximumUnitSeconds: Double = 0.6
        /// Decibels below the loud frames' level (their 95th percentile) under which the start and
        /// the end of a recording are silence, a section of their own before the music starts and
        /// after it stops (default 50; 0 turns the silent sections off; docs/analyses/structure.md).
        public var silenceDepth: Double = 50
        /// Shortest silence at the start or the end that becomes a section, seconds (default 0.25).
        public var minimumSilenceSeconds: Double = 0.25
        /// Decibels below the loud frames' level under which a recording's first or last
        /// ``minimumSilenceSeconds`` are its noise floor (tape hiss, a room), and the music starts
        /// (or stops) where the level rises 6 dB above that floor (default 40; 0 turns it off;
        /// docs/analyses/structure.md, "Silence over a noise floor").
        public var noiseFloorDepth: Double = 40

        /// How section boundaries are found.
        public enum SectionMethod: String, Sendable, Hashable, Codable {
            /// Structural features (``StructuralFeatures``) on beats (slow ones halved to units of at
            /// most ``Configuration/maximumUnitSeconds``), snapped to bar lines.
            case structuralFeatures
            /// Checkerboard and phrase-repetition novelty on bars (steps 2-3 above).
            case barNovelty
        }

        /// The defaults.
        public init() {}
    }
}
