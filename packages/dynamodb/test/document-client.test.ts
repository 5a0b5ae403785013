import { dynamoConformance } from './helpers/dynamodb';

// The same store over a DynamoDBDocumentClient made from the client.
dynamoConformance('local', 'document client');
