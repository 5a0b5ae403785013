// An ES module consumer (`import` condition, .d.mts declarations).
export { uses } from './uses.js';
