export * from './client';
export * from './errors';
export type { AnswerEvent, DeltaEvent, FinalEvent } from './answer-events';
export type { V1AnalyticsOverview, V1Chatbot, V1Conversation, V1Message, V1PageMeta, V1SendMessageResult, V1UserListMeta } from './v1-client';
export { V1Client } from './v1-client';
