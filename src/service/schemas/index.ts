export * from './fields';
export * from './envelope';
export * from './settings';
export * from './chat';
export * from './listings';
export * from './v1';
