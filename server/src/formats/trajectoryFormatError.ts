/** A file the viewer cannot read as a trajectory (none of its formats, or beyond reading); the message says why. */
export class TrajectoryFormatError extends Error {}
