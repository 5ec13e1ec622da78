import { RATE_LIMIT_DEFAULTS, type SettingsFields } from '../../service/schemas';

/**
 * A chatbot's settings: every member of section 2.1 except its id, defaults filled in, so the
 * answerer and the limits never have to guess.
 */
export type ChatbotSettings = Required<SettingsFields>;

export const DEFAULT_TALK_TO_HUMAN =
  "I'm not sure I can help with that from our listings. One of our agents can help you with it.";

export function defaultSettings(name: string): ChatbotSettings {
  return {
    Name: name,
    Model: '2',
    SystemMessage:
      'You are a friendly real estate assistant. Answer questions about the listings you are given, ' +
      'quote prices and addresses exactly, and offer to connect the user with an agent when unsure.',
    Temperature: 0,
    TimeZone: 'UTC',
    AnswerSuffix: '',
    ChatProfilePicture: '',
    ChatIcon: '',
    ChatBubbleAlign: 1,
    ChatBubbleColor: 'rgb(37,99,235)',
    ChatbotPopupOnce: false,
    ChatbotPrivacyPolicyDescription: 'By chatting you agree to our privacy policy.',
    ChatbotPrivacyPolicyName: 'Privacy policy',
    ChatbotPrivacyPolicyUrl: '',
    EnablePushToTalk: false,
    EnableUploadImage: true,
    SocialPageUrl: '',
    SocialProfileUrl: '',
    RemoveChatLogOnBrowserClose: false,
    SuggestedMessage: 'Show me homes for sale in Austin',
    TalkToHumanEmail: '',
    TalkToHumanResponseMessage: DEFAULT_TALK_TO_HUMAN,
    UserInputPlaceholder: 'Ask about our listings...',
    UserMessageColor: 'rgb(255,255,255)',
    WelcomeMessage: `Hi! I'm ${name}. Ask me about homes for sale or for rent, prices, bedrooms or an MLS number.`,
    MessagingContactUrl: '',
    VerifyDomain: false,
    Domains: '',
    ...RATE_LIMIT_DEFAULTS,
    CustomDomain: '',
    EmailForDailyChatLogs: '',
    EmailForDailyLeads: '',
    AIResponseLanguage: 'English',
    MessageLimit: -1,
  };
}
