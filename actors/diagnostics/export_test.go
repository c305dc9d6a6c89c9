package diagnostics

// WorkingPoll is workingPoll, for the fake-clock tests.
const WorkingPoll = workingPoll
