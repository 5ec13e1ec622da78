export { Relay } from './relay';
