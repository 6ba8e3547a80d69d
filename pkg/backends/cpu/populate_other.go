//go:build unix && !linux

package cpu

// populateFlag is 0: only Linux populates mappings on request.
const populateFlag = 0
